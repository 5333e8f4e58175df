// Independent Redis nodes (no replication), one child each, in .stack/redis-<n>.
// Node 1 is the store's own: the stock, the sale, its reservations, the room's joins and the admin
// sessions live there, so it keeps an append-only file (STORE_NODE_PERSISTENCE). Nodes 2–5 hold
// only a lesson's locks and keep none: "a node restarted empty" is a pitfall the lab shows on them.
// POST /redis/<n>/stop shuts a node down (SHUTDOWN NOSAVE: the append-only file is still flushed);
// POST /redis/<n>/kill is a crash (SIGKILL: what was written to the file is all that survives).
// Each runs under libfaketime with a clock of its own (.stack/redis-<n>/clock, "+0" at start) that
// POST /redis/<n>/clock moves: { "jumpS": 15 } steps it, { "rate": 2 } makes it run fast,
// { "reset": true } puts it back; /reset-faults resets every clock (see ../fake-clock.ts).

import path from "node:path";
import { pick } from "../control";
import type { RedisNodeConfig } from "../config";
import { HttpError, StackError } from "../errors";
import { CLOCK_LIMITS, type ClockReading, FakeClock, fakeClockAvailable, fakeClockEnv, removeShm } from "../fake-clock";
import { info, isQuiet, ok, say, since, tail } from "../log";
import { STACK_DIR, mkdirp } from "../paths";
import { spawnGid } from "../network";
import { LOCAL_HOSTS, foreignPort, portAnswers } from "../ports";
import {
  type ChildHandle,
  STOP_TIMEOUT_MS,
  exitDescription,
  isAlive,
  removePidFile,
  running,
  signal,
  sleep,
  spawnChild,
  terminate,
  waitExit,
  waitFor,
} from "../processes";
import { redisCommand, redisConfigDir, redisPing, redisReply, redisShutdown } from "../resp";
import type { Service, ServiceFactory } from "../service";
import { type PortFacts, type StaleRule, decidePortClaim } from "../stale";

const REDIS_READY_TIMEOUT_MS = 10_000;

interface RedisNode extends RedisNodeConfig {
  /** Started and stopped by the stack; false for a server the user pointed us at. */
  managed: boolean;
  handle: ChildHandle | null;
  /** Its wall clock, when libfaketime is installed. */
  clock: FakeClock | null;
}

function redisDir(node: RedisNodeConfig): string {
  return path.join(STACK_DIR, `redis-${node.index}`);
}

/** The node that holds the store's own data rather than a lesson's lock (lib/redis.ts getRedis). */
export const STORE_NODE = 1;

/**
 * The store's node writes every command to its append-only file before it answers it, and fsyncs
 * the file once a second. A crash of the process (SIGKILL, an OOM kill, a supervisor's restart)
 * loses no write it acknowledged: the file's writes are in the kernel before the reply leaves. A
 * crash of the machine may lose the last second's writes; Postgres' orders are durable, so a unit
 * sold in that second reads as back on the shelf and is counted phantom (README, "Durability").
 * `always` would close that second at an fsync per write, which a laptop's disk pays on every
 * lock, stock write and release of every purchase.
 */
export const STORE_NODE_PERSISTENCE = ["--appendonly", "yes", "--appendfsync", "everysec"] as const;

export function redisArgs(node: RedisNodeConfig): string[] {
  const dir = redisDir(node);
  return [
    "--port", String(node.port),
    "--bind", node.host === "localhost" ? "127.0.0.1" : node.host,
    "--save", "",
    ...(node.index === STORE_NODE ? STORE_NODE_PERSISTENCE : ["--appendonly", "no"]),
    "--daemonize", "no",
    "--dir", dir,
    "--pidfile", path.join(dir, "redis.pid"),
    "--logfile", "",
  ];
}

export const REDIS_STALE: StaleRule = {
  kind: "redis",
  isOurs: (_rec, proc) => proc.cmdline.includes("redis-server"),
  async stop(rec) {
    const stopped = rec.port && (await redisShutdown("127.0.0.1", rec.port));
    if (!stopped) signal(rec.pid, "SIGKILL", false);
    await waitFor(() => !isAlive(rec.pid), 5000);
    removeShm(rec.pid);
  },
};

async function observePort(node: RedisNodeConfig, explicit: boolean): Promise<PortFacts> {
  const facts = { answers: false, local: LOCAL_HOSTS.has(node.host), explicit };
  if (!(await portAnswers(node.host, node.port))) return facts;
  if (!(await redisPing(node.host, node.port))) return { ...facts, answers: true, speaks: false };
  const dir = await redisConfigDir(node.host, node.port);
  const leftover = Boolean(dir && path.resolve(dir) === path.resolve(redisDir(node)));
  return { ...facts, answers: true, speaks: true, leftover };
}

async function startNode(node: RedisNode): Promise<void> {
  const t0 = Date.now();
  mkdirp(redisDir(node));
  node.clock?.processStarted();
  const handle = spawnChild(`redis-${node.index}`, "redis-server", redisArgs(node), {
    env: node.clock ? { ...process.env, ...fakeClockEnv(node.clock.file) } : process.env,
    gid: spawnGid("redis", node.index),
    record: { kind: "redis", port: node.port },
  });
  node.handle = handle;
  if (node.clock) void handle.exited.then(() => removeShm(handle.pid));
  const ready = await waitFor(
    async () => {
      if (handle.exitInfo) return true;
      return redisPing(node.host, node.port, 300);
    },
    REDIS_READY_TIMEOUT_MS,
    50,
  );
  if (!ready || handle.exitInfo) {
    await terminate(handle, "SIGKILL");
    throw new StackError(
      `redis ${node.addr} did not start (${exitDescription(handle.exitInfo)}); log ${handle.logFile}:\n${tail(handle.logFile)}`,
    );
  }
  info(`✓ redis ${node.addr} (${since(t0)})`);
}

async function stopNode(node: RedisNode): Promise<void> {
  if (!running(node.handle)) return;
  const handle = node.handle;
  await redisCommand(node.host, node.port, ["SHUTDOWN", "NOSAVE"], 3000);
  if (!(await waitExit(handle, STOP_TIMEOUT_MS))) await terminate(handle, "SIGKILL");
  await waitFor(async () => !(await portAnswers(node.host, node.port, 200)), 5000);
  removePidFile(handle.name);
}

/** How far the node's wall clock (TIME) is ahead of this process's, in seconds; null if it does not answer. */
export async function redisClockSkewS(host: string, port: number): Promise<number | null> {
  const sent = Date.now();
  const reply = await redisReply(host, port, ["TIME"], 1000);
  const received = Date.now();
  if (!Array.isArray(reply) || reply.length !== 2) return null;
  const serverMs = Number(reply[0]) * 1000 + Number(reply[1]) / 1000;
  return (serverMs - (sent + received) / 2) / 1000;
}

/** What POST /redis/<n>/clock asks: exactly one of a jump, a rate, a reset. */
export type ClockChange = { readonly jumpS: number } | { readonly rate: number } | { readonly reset: true };

export function parseClockChange(body: unknown): ClockChange {
  const bad = (why: string) => new HttpError(422, "invalid_clock", `${why}: send { "jumpS": 15 }, { "rate": 2 } or { "reset": true }`);
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw bad("no JSON object");
  const entries = Object.entries(body);
  if (entries.length !== 1) throw bad("exactly one field");
  const [key, value] = entries[0]!;
  const { maxJumpS, minRate, maxRate } = CLOCK_LIMITS;
  if (key === "jumpS" && typeof value === "number" && Number.isFinite(value) && value !== 0 && Math.abs(value) <= maxJumpS) return { jumpS: value };
  if (key === "rate" && typeof value === "number" && Number.isFinite(value) && value >= minRate && value <= maxRate) return { rate: value };
  if (key === "reset" && value === true) return { reset: true };
  throw bad(`"${key}": ${JSON.stringify(value)} is not a jump of 0 < |s| ≤ ${maxJumpS}, a rate of ${minRate}..${maxRate} or reset: true`);
}

/**
 * The clock's file is read again once a real second has begun (FAKETIME_CACHE_DURATION=0) and the
 * node reads its wall clock at least ten times a second (hz 10): past the next second and a
 * margin, TIME shows the change. Resolves with what TIME says then, or throws 504.
 */
async function clockApplied(node: RedisNode, expected: ClockReading): Promise<number> {
  await sleep(1000 - (Date.now() % 1000) + 150);
  let measured: number | null = null;
  for (let attempt = 0; attempt < 10; attempt++) {
    measured = await redisClockSkewS(node.host, node.port);
    const wanted = node.clock?.reading().offsetS ?? expected.offsetS;
    if (measured !== null && Math.abs(measured - wanted) < 0.25) return measured;
    await sleep(100);
  }
  throw new HttpError(504, "clock_not_applied", `redis ${node.addr} reads ${measured ?? "nothing"} s ahead, not ${expected.offsetS.toFixed(3)} s`);
}

async function changeClock(node: RedisNode, change: ClockChange): Promise<{ reading: ClockReading; measuredOffsetS: number }> {
  const clock = node.clock;
  if (!clock) throw new HttpError(503, "clock_unavailable", "libfaketime is not installed (Debian's faketime and libfaketime packages): no Redis clock can move");
  if (!running(node.handle)) throw new HttpError(409, "not_running", `redis ${node.addr} is stopped`);
  const target = "jumpS" in change ? clock.jump(change.jumpS) : "rate" in change ? clock.setRate(change.rate) : clock.reset();
  const measuredOffsetS = await clockApplied(node, target);
  return { reading: clock.reading(), measuredOffsetS };
}

async function startAgain(node: RedisNode): Promise<void> {
  if (running(node.handle) && (await redisPing(node.host, node.port))) return;
  await startNode(node);
}

export const redis: ServiceFactory = ({ cfg }): Service => {
  const clocks = fakeClockAvailable();
  const nodes: RedisNode[] = cfg.redis.map((n) => ({
    ...n,
    managed: false,
    handle: null,
    clock: clocks ? new FakeClock(path.join(redisDir(n), "clock")) : null,
  }));
  const managedNodes = () => nodes.filter((n) => n.managed);

  return {
    name: "redis",
    stage: "store",
    stale: REDIS_STALE,

    async claim() {
      for (const node of nodes) {
        node.managed = true;
        switch (decidePortClaim(await observePort(node, cfg.redisExplicit))) {
          case "start":
            continue;
          case "unreachable":
            throw new StackError(`REDIS_NODES: ${node.addr} does not answer and is not local, so the stack cannot start it`);
          case "stop-leftover":
            await redisShutdown(node.host, node.port); // ours, from a run whose pidfile is gone
            say(`✓ stopped stale redis ${node.addr} from a previous run`);
            continue;
          case "use-existing":
            node.managed = false;
            say(`✓ redis ${node.addr} (already running, used as is)`);
            continue;
          case "foreign":
            throw foreignPort(node.port, "REDIS_NODES", `redis node ${node.index}`);
        }
      }
    },

    async start() {
      const t0 = Date.now();
      await Promise.all(managedNodes().map((n) => startNode(n)));
      if (isQuiet() && managedNodes().length) ok(`redis ×${managedNodes().length} ${managedNodes().map((n) => n.addr).join(" ")}`, t0);
    },

    async stop() {
      await Promise.all(nodes.map((n) => stopNode(n)));
    },

    status: () =>
      Promise.all(
        nodes.map(async (n) => ({
          index: n.index,
          addr: n.addr,
          up: await redisPing(n.host, n.port, 300),
          managed: n.managed,
          pid: running(n.handle) ? n.handle.pid : null,
          // How far its clock is ahead of the real one, and how fast it runs; null: no libfaketime.
          clock: n.managed && n.clock ? n.clock.reading() : null,
        })),
      ),

    routes: [
      {
        method: "POST",
        path: /^\/redis\/(\d+)\/stop$/,
        async handle([n]) {
          const node = pick(nodes, n, "redis node");
          await stopNode(node);
          say(`… redis ${node.addr} stopped (control API)`);
          return { redis: node.index, addr: node.addr, up: false };
        },
      },
      {
        method: "POST",
        path: /^\/redis\/(\d+)\/kill$/,
        async handle([n]) {
          const node = pick(nodes, n, "redis node");
          const killed = node.handle;
          if (running(killed)) {
            signal(killed.pid, "SIGKILL");
            await killed.exited;
            removePidFile(killed.name);
          }
          say(`… redis ${node.addr} killed (control API)`);
          return { redis: node.index, addr: node.addr, up: false, killedPid: killed?.pid ?? null };
        },
      },
      {
        method: "POST",
        path: /^\/redis\/(\d+)\/start$/,
        async handle([n]) {
          const node = pick(nodes, n, "redis node");
          await startAgain(node);
          return { redis: node.index, addr: node.addr, up: true, pid: node.handle?.pid ?? null };
        },
      },
      {
        method: "POST",
        path: /^\/redis\/(\d+)\/clock$/,
        async handle([n], body) {
          const node = pick(nodes, n, "redis node");
          const change = parseClockChange(body);
          const { reading, measuredOffsetS } = await changeClock(node, change);
          say(`… redis ${node.addr} clock ${reading.offsetS >= 0 ? "+" : ""}${reading.offsetS.toFixed(3)} s × ${reading.rate} (control API)`);
          return { redis: node.index, addr: node.addr, clock: reading, measuredOffsetS };
        },
      },
    ],

    faulted: () => managedNodes().some((n) => !running(n.handle)),

    async resetFaults() {
      const moved = managedNodes().filter((n) => n.clock && (n.clock.target().offsetS !== 0 || n.clock.target().rate !== 1));
      for (const n of moved) n.clock?.reset();
      await Promise.all(managedNodes().map((n) => startAgain(n)));
      await Promise.all(moved.filter((n) => running(n.handle)).map((n) => clockApplied(n, { offsetS: 0, rate: 1 })));
    },
  };
};
