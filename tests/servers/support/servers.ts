/**
 * Real servers of a test's own, none of the stack's: a Redis Cluster (six redis-server in cluster
 * mode, created with redis-cli as the stack creates its own), a Postgres (initdb in a temp dir) and
 * PgBouncer in transaction mode in front of it, with the stack's own node arguments and
 * pgbouncer.ini. All on free ports in 17200–17999, in temp dirs, stopped by `stopServers()` (each
 * file calls it in afterAll) or, at worst, killed when the test process exits.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import type { MemberConfig } from "../../../scripts/stack/config";
import { ROOT } from "../../../scripts/stack/paths";
import { redisReply } from "../../../scripts/stack/resp";
import { pgbouncerIni, pgbouncerServes, pgbouncerUsers, findPgBouncer } from "../../../scripts/stack/services/pgbouncer";
import { postgresLayout } from "../../../scripts/stack/services/postgres-cluster";
import { clusterNodeArgs, clusterRoles, clusterServes, createCluster } from "../../../scripts/stack/services/redis-cluster";
import { waitFor } from "../../support/wait";

/** Why this machine cannot run these tests, or null. */
export function machineUnfit(needs: readonly ("redis-cluster" | "postgres" | "pgbouncer")[]): string | null {
  const has = (command: string, args = ["--version"]) => spawnSync(command, args).status === 0;
  if (needs.includes("redis-cluster") && !(has("redis-server") && has("redis-cli"))) return "redis-server and redis-cli are not installed";
  if (needs.includes("postgres") && !postgresLayout().bin) return "PostgreSQL's server binaries are not installed";
  if (needs.includes("pgbouncer") && !findPgBouncer()) return "pgbouncer is not installed";
  if ((needs.includes("postgres") || needs.includes("pgbouncer")) && process.getuid?.() === 0 && !postgresLayout().owner) return "root without a postgres user to run Postgres as";
  return null;
}

const children = new Set<ChildProcess>();
const cleanups: (() => Promise<void> | void)[] = [];
process.once("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once("exit", () => resolve()));
}

async function stopChild(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill("SIGCONT");
    child.kill(signal);
    const late = setTimeout(() => child.kill("SIGKILL"), 5000);
    await exited(child);
    clearTimeout(late);
  }
  children.delete(child);
}

/** Stops everything this file started, last first. */
export async function stopServers(): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
}

function startChild(command: string, args: readonly string[], options: { uid?: number; gid?: number; cwd?: string } = {}): ChildProcess & { output(): string } {
  const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  children.add(child);
  return Object.assign(child, { output: () => output });
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/**
 * `count` consecutive free ports whose +100 (a cluster node's bus port) are free too, from a
 * place of this process's own in 17200–17899.
 */
export async function freePortBlock(count: number): Promise<number[]> {
  const start = 17200 + ((process.pid * 13) % 690);
  for (let i = 0; i < 700; i += count) {
    const base = 17200 + ((start - 17200 + i) % (700 - count));
    const ports = Array.from({ length: count }, (_, k) => base + k);
    if ((await Promise.all(ports.flatMap((p) => [portFree(p), portFree(p + 100)]))).every(Boolean)) return ports;
  }
  throw new Error(`no ${count} free ports (and their +100) in 17200–17999`);
}

function tempDir(prefix: string, owner?: { uid: number; gid: number }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.chmodSync(dir, 0o755);
  if (owner) fs.chownSync(dir, owner.uid, owner.gid);
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface TestCluster {
  /** host:port of each node, the first three the primaries at creation. */
  readonly nodes: readonly string[];
  readonly members: readonly MemberConfig[];
  /** SIGSTOP / SIGCONT of node `index` (1-based). */
  pause(index: number): void;
  resume(index: number): void;
  /** Every node stopped at once (no replica left to promote), and started again: the same cluster comes back. */
  stopAll(): Promise<void>;
  startAll(): Promise<void>;
  /** The member indexes of the replicas now. */
  replicas(): Promise<number[]>;
}

/** Six redis-server in cluster mode, created into three primaries with a replica each, as the stack does. */
export async function startRedisCluster(): Promise<TestCluster> {
  const ports = await freePortBlock(6);
  const members: MemberConfig[] = ports.map((port, i) => ({ index: i + 1, host: "127.0.0.1", port, addr: `127.0.0.1:${port}` }));
  const dirs = members.map(() => tempDir("locklab-cluster-"));
  let nodes: ChildProcess[] = [];
  const start = async () => {
    nodes = members.map((m, i) => startChild("redis-server", clusterNodeArgs(m, dirs[i]!)));
    await waitFor(() => Promise.all(members.map((m) => redisReply(m.host, m.port, ["PING"], 300))), {
      what: `six redis cluster nodes on ${ports[0]}–${ports[5]} (bus +100) to answer`,
      timeoutMs: 10_000,
      until: (replies) => replies.every((r) => r === "PONG"),
    });
  };
  const stop = async () => void (await Promise.all(nodes.map((child) => stopChild(child))));
  cleanups.push(stop);
  await start();
  await createCluster(members);
  const serves = () => waitFor(() => clusterServes(members), { what: "the cluster to serve, every replica linked", timeoutMs: 20_000, intervalMs: 100 });
  await serves();
  return {
    nodes: members.map((m) => m.addr),
    members,
    pause: (index) => void nodes[index - 1]?.kill("SIGSTOP"),
    resume: (index) => void nodes[index - 1]?.kill("SIGCONT"),
    stopAll: stop,
    async startAll() {
      await start();
      await serves();
    },
    replicas: async () => (await clusterRoles(members))?.members.filter((m) => m.role === "replica").map((m) => m.index) ?? [],
  };
}

export interface TestPostgres {
  readonly port: number;
  /** A pool straight to it, as the lock pool is (user and database `postgres`). */
  pool(max?: number): pg.Pool;
  /**
   * A database of its own with the app's schema: every migration in prisma/migrations applied in
   * order, as `prisma migrate deploy` applies them. Its URL, for DATABASE_URL.
   */
  migratedDatabase(name: string): Promise<string>;
  /**
   * SIGSTOP to the postmaster and every backend it forked, as a partition looks from a client: its
   * connections stay open and nothing comes back (a new connect is taken by the kernel's backlog and
   * never answered). `thaw` sends SIGCONT. Both answer the pids they signalled.
   */
  freeze(): number[];
  thaw(): number[];
  /** Whether each process `freeze` signalled is stopped now (state T in /proc), for a test to check its fault happened. */
  frozen(pids: readonly number[]): boolean;
}

/** The processes whose parent is `pid` (a postmaster's backends), from /proc. */
function childrenOf(pid: number): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      // pid (comm) state ppid …: the name may hold spaces and parentheses, so read after the last ')'.
      const [, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(ppid) === pid) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

function processState(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
  } catch {
    return undefined;
  }
}

/** initdb in a temp dir and a postgres on a free port, as the `postgres` user when root; the fencing sequence made. */
export async function startPostgres(): Promise<TestPostgres> {
  const { bin, owner } = postgresLayout();
  if (!bin) throw new Error("no PostgreSQL server binaries");
  const asOwner = owner ? { uid: owner.uid, gid: owner.gid } : {};
  const [port] = await freePortBlock(1);
  const dataDir = path.join(tempDir("locklab-pg-", owner ?? undefined), "data");
  const initdb = spawnSync(path.join(bin, "initdb"), ["-D", dataDir, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-locale"], { encoding: "utf8", cwd: os.tmpdir(), ...asOwner });
  if (initdb.status !== 0) throw new Error(`initdb failed: ${initdb.stderr}`);
  const server = startChild(path.join(bin, "postgres"), ["-D", dataDir, "-c", "listen_addresses=127.0.0.1", "-c", `port=${port}`, "-c", "unix_socket_directories=", "-c", "max_connections=300", "-c", "fsync=off"], { cwd: os.tmpdir(), ...asOwner });
  cleanups.push(() => stopChild(server, "SIGINT"));
  const pools: pg.Pool[] = [];
  cleanups.push(async () => void (await Promise.allSettled(pools.splice(0).map((p) => p.end()))));
  const pool = (max = 20) => {
    const created = new pg.Pool({ host: "127.0.0.1", port: port!, user: "postgres", database: "postgres", max, connectionTimeoutMillis: 0 });
    created.on("error", () => {});
    pools.push(created);
    return created;
  };
  const admin = pool(1);
  await waitFor(() => admin.query("SELECT 1"), { what: `postgres on ${port} to answer (${server.output().slice(-300)})`, timeoutMs: 20_000, intervalMs: 100 });
  await admin.query("CREATE SEQUENCE lock_fence_seq");
  const signalAll = (signal: NodeJS.Signals) => {
    if (server.exitCode !== null || server.signalCode !== null) return [];
    const pids = [server.pid!, ...childrenOf(server.pid!)];
    for (const pid of pids) {
      try {
        process.kill(pid, signal);
      } catch {
        // a backend that ended since it was listed
      }
    }
    return pids;
  };
  // Never left stopped: the cleanups stop the server with SIGINT, which a stopped backend would not heed.
  cleanups.push(() => void signalAll("SIGCONT"));
  return {
    port: port!,
    pool,
    async migratedDatabase(name) {
      await admin.query(`CREATE DATABASE ${name}`);
      const client = new pg.Client({ host: "127.0.0.1", port: port!, user: "postgres", database: name });
      await client.connect();
      try {
        const dir = path.join(ROOT, "prisma", "migrations");
        for (const migration of fs.readdirSync(dir).filter((entry) => fs.statSync(path.join(dir, entry)).isDirectory()).sort()) {
          await client.query(fs.readFileSync(path.join(dir, migration, "migration.sql"), "utf8"));
        }
      } finally {
        await client.end();
      }
      return `postgresql://postgres@127.0.0.1:${port}/${name}`;
    },
    freeze: () => signalAll("SIGSTOP"),
    thaw: () => signalAll("SIGCONT"),
    frozen: (pids) => pids.every((pid) => processState(pid) === "T"),
  };
}

export interface TestRedis {
  readonly port: number;
  /** host:port, as REDIS_NODES lists a node. */
  readonly address: string;
}

/** One redis-server on a free port, no persistence, in a temp dir: a Redis node 1 of the test's own. */
export async function startRedis(): Promise<TestRedis> {
  const [port] = await freePortBlock(1);
  const dir = tempDir("locklab-redis-");
  const server = startChild("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir]);
  cleanups.push(() => stopChild(server));
  await waitFor(() => redisReply("127.0.0.1", port!, ["PING"], 300), {
    what: `redis-server on ${port} to answer (${server.output().slice(-300)})`,
    timeoutMs: 10_000,
    until: (reply) => reply === "PONG",
  });
  return { port: port!, address: `127.0.0.1:${port}` };
}

export interface TestPgBouncer {
  readonly port: number;
  /** A pool through it (each connection a client of PgBouncer). */
  pool(max?: number): pg.Pool;
}

/** PgBouncer with the stack's pgbouncer.ini (transaction mode) in front of `postgres`. */
export async function startPgBouncer(postgres: TestPostgres): Promise<TestPgBouncer> {
  const binary = findPgBouncer();
  if (!binary) throw new Error("no pgbouncer");
  const { owner } = postgresLayout();
  const [port] = await freePortBlock(1);
  const dir = tempDir("locklab-pgbouncer-");
  const authFile = path.join(dir, "userlist.txt");
  const iniFile = path.join(dir, "pgbouncer.ini");
  fs.writeFileSync(authFile, pgbouncerUsers("postgres"), { mode: 0o644 });
  fs.writeFileSync(iniFile, pgbouncerIni({ listen: { host: "127.0.0.1", port: port! }, name: "postgres", user: "postgres", server: { host: "127.0.0.1", port: postgres.port, name: "postgres" }, authFile }), { mode: 0o644 });
  // As the stack runs it: PgBouncer refuses root.
  const bouncer = startChild(binary, [iniFile], owner && process.getuid?.() === 0 ? { uid: owner.uid, gid: owner.gid } : {});
  cleanups.push(() => stopChild(bouncer, "SIGINT"));
  await waitFor(() => pgbouncerServes({ host: "127.0.0.1", port: port!, user: "postgres", name: "postgres" }), {
    what: `pgbouncer on ${port} to pass a query to postgres (${bouncer.output().slice(-300)})`,
    timeoutMs: 20_000,
    intervalMs: 100,
  });
  const pools: pg.Pool[] = [];
  cleanups.push(async () => void (await Promise.allSettled(pools.splice(0).map((p) => p.end()))));
  return {
    port: port!,
    pool(max = 20) {
      const created = new pg.Pool({ host: "127.0.0.1", port: port!, user: "postgres", database: "postgres", max, connectionTimeoutMillis: 0 });
      created.on("error", () => {});
      pools.push(created);
      return created;
    },
  };
}
