/**
 * Real servers and real client processes for the network tests, none of them the stack's: standalone
 * redis-server processes on free 17xxx ports (no persistence), client processes with a group id of
 * their own outside the stack's range (so the stack's table never stamps them), and an nft table
 * named locklab_dev_<pid> (never the stack's `locklab`). Everything started here is stopped by
 * `cleanup()`, which each test file calls in afterAll.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { redisReply } from "../../../scripts/stack/resp";
import { type WaitForOptions, waitFor } from "../../support/wait";

const PROBE_CLIENT = path.join(__dirname, "probe-client.cjs");

/** Test clients' gids: above the stack's range (61000–61599), below nogroup. */
export const TEST_GIDS = Object.freeze({ first: 61901, second: 61902 });

/** Why this machine cannot run the network tests, or null. Root for gids and nftables. */
export function machineUnfit(): string | null {
  if (process.getuid?.() !== 0) return "not root: the network tests need group ids and nftables";
  if (spawnSync("nft", ["--version"]).status !== 0) return "nft is not installed (Debian's nftables)";
  if (spawnSync("redis-server", ["--version"]).status !== 0) return "redis-server is not installed";
  return null;
}

const started: (() => Promise<void>)[] = [];

/** Stops everything this file started, last first. */
export async function cleanup(): Promise<void> {
  for (const stop of started.splice(0).reverse()) await stop().catch(() => undefined);
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once("exit", () => resolve()));
}

async function stopChild(child: ChildProcess, timeoutMs = 3000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  const timer = new Promise<"late">((resolve) => setTimeout(() => resolve("late"), timeoutMs).unref());
  if ((await Promise.race([exited(child).then(() => "done" as const), timer])) === "late") {
    child.kill("SIGKILL");
    await exited(child);
  }
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** `count` ports from 17200 up that nothing listens on, from a place of this process's own. */
export async function freePorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  const first = 17200 + ((process.pid * 7) % 700);
  for (let i = 0; i < 100 && ports.length < count; i++) {
    const port = 17200 + ((first - 17200 + i) % 800);
    if (await portFree(port)) ports.push(port);
  }
  if (ports.length < count) throw new Error(`fewer than ${count} free ports in 17200–17999`);
  return ports;
}

export interface TestRedis {
  readonly port: number;
  readonly child: ChildProcess;
  /** A command from the test process itself (gid root: never cut). */
  command(args: readonly string[], timeoutMs?: number): Promise<unknown>;
  stop(): Promise<void>;
}

export async function startRedis(port: number, env: Readonly<Record<string, string>> = {}): Promise<TestRedis> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "locklab-net-redis-"));
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir, "--logfile", ""],
    { env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const stop = async () => {
    await stopChild(child);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  started.push(stop);
  await waitFor(() => redisReply("127.0.0.1", port, ["PING"], 300), {
    what: `redis-server on ${port} to answer PING (stderr: ${stderr.slice(0, 300)})`,
    timeoutMs: 10_000,
    until: (reply) => reply === "PONG" || child.exitCode !== null,
  });
  if (child.exitCode !== null) throw new Error(`redis-server on ${port} exited: ${stderr}`);
  return { port, child, command: (args, timeoutMs = 1000) => redisReply("127.0.0.1", port, args, timeoutMs), stop };
}

export interface ProbeAnswer {
  readonly ok: boolean;
  readonly reply?: unknown;
  readonly error?: string;
  /** How long the call took in the client, ms. */
  readonly ms: number;
}

export interface ProbeEvent {
  readonly event: string;
  readonly conn?: string;
  readonly [key: string]: unknown;
}

export interface Probe {
  readonly gid: number;
  readonly events: ProbeEvent[];
  connect(conn: string, port: number, timeoutMs: number): Promise<ProbeAnswer>;
  call(conn: string, args: readonly (string | number)[]): Promise<ProbeAnswer>;
  subscribe(conn: string, channel: string): Promise<ProbeAnswer>;
  waitEvent(match: (e: ProbeEvent) => boolean, options: Omit<WaitForOptions<ProbeEvent | undefined>, "until">): Promise<ProbeEvent | undefined>;
}

/** A client process running with group id `gid`, as the stack runs an app instance. */
export async function startProbe(gid: number): Promise<Probe> {
  const child = spawn(process.execPath, [PROBE_CLIENT], { gid, stdio: ["pipe", "pipe", "inherit"] });
  started.push(async () => {
    child.stdin?.end();
    await stopChild(child);
  });
  const events: ProbeEvent[] = [];
  const waiting = new Map<number, (answer: ProbeAnswer) => void>();
  let nextId = 0;
  readline.createInterface({ input: child.stdout! }).on("line", (line) => {
    const message = JSON.parse(line) as ProbeAnswer & ProbeEvent & { id?: number };
    if (message.id !== undefined) waiting.get(message.id)?.(message);
    else events.push(message);
  });
  const ask = (message: Record<string, unknown>) =>
    new Promise<ProbeAnswer>((resolve) => {
      const id = ++nextId;
      waiting.set(id, resolve);
      child.stdin!.write(`${JSON.stringify({ ...message, id })}\n`);
    });
  const probe: Probe = {
    gid,
    events,
    connect: (conn, port, timeoutMs) => ask({ op: "connect", conn, port, timeoutMs }),
    call: (conn, args) => ask({ op: "call", conn, args: args.map(String) }),
    subscribe: (conn, channel) => ask({ op: "subscribe", conn, channel }),
    waitEvent: (match, options) => waitFor(() => events.find(match), options),
  };
  const ready = await probe.waitEvent((e) => e.event === "ready", { what: `the client with gid ${gid} to start`, timeoutMs: 10_000 });
  if (ready?.gid !== gid) throw new Error(`the client runs with gid ${String(ready?.gid)}, not ${gid}`);
  return probe;
}
