import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { processStartTime } from "../../lib/stack/run-files";
import { LOG_DIR, PID_DIR, ROOT, mkdirp } from "./paths";

export const STOP_TIMEOUT_MS = 10_000;

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it is true (→ true) or the time is up (→ false); checks once more first. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  intervalMs = 100,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(intervalMs);
  }
}

/** Alive and not a zombie. A daemon whose parent never reaps it stays in /proc as state Z. */
export function isAlive(pid: unknown): boolean {
  if (typeof pid !== "number" || !Number.isInteger(pid) || pid <= 0) return false;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT" || fs.existsSync("/proc/self/stat")) return false;
    try {
      process.kill(pid, 0); // no /proc (macOS): best effort
      return true;
    } catch {
      return false;
    }
  }
}

/** Next.js replaces its process title ("next-server (v16…)"), so apps are recognised by a marker
 * in their environment instead of their command line. */
export function environOf(pid: number): string[] {
  try {
    return fs.readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
  } catch {
    return [];
  }
}

export function cmdlineOf(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
  } catch {
    const ps = spawnSync("ps", ["-o", "command=", "-p", String(pid)], { encoding: "utf8" });
    return ps.status === 0 ? ps.stdout.trim() : "";
  }
}

/** Signals the child's whole process group (each child leads its own), or just the pid. */
export function signal(pid: number | undefined, sig: NodeJS.Signals, group = true): void {
  if (!pid) return;
  try {
    process.kill(group ? -pid : pid, sig);
  } catch {
    try {
      process.kill(pid, sig);
    } catch {
      /* already gone */
    }
  }
}

// ---------------------------------------------------------------------------------------------
// pidfiles: .stack/pids/<name>.json, for the reaper (every child dies with this process) and the
// next start's cleanup of whatever a killed supervisor left

/** What a pidfile holds. `kind` says how to recognise and stop the process (see stale.ts). */
export interface PidRecord {
  readonly pid: number;
  readonly kind: string;
  readonly supervisor?: number;
  /** When the process started (lib/stack/run-files.ts): a pid reused by another program since is
   * told apart by it. */
  readonly startTime?: number;
  readonly port?: number;
  readonly dataDir?: string;
}

export function pidFile(name: string): string {
  return path.join(PID_DIR, `${name}.json`);
}

export function writePidFile(name: string, record: PidRecord): void {
  mkdirp(PID_DIR);
  fs.writeFileSync(pidFile(name), `${JSON.stringify({ ...record, supervisor: process.pid })}\n`);
}

export function removePidFile(name: string): void {
  fs.rmSync(pidFile(name), { force: true });
}

// ---------------------------------------------------------------------------------------------
// the children we start

export interface ExitInfo {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly error?: Error;
}

export interface ChildHandle {
  readonly name: string;
  readonly child: ChildProcess;
  readonly pid: number | undefined;
  readonly logFile: string;
  /** Null while the child runs. */
  exitInfo: ExitInfo | null;
  readonly exited: Promise<ExitInfo>;
}

/** A child's whole environment. Not NodeJS.ProcessEnv: Next's types make NODE_ENV required there,
 * and Postgres' children get a minimal environment without it. */
export type ChildEnv = Readonly<Record<string, string | undefined>>;

export interface SpawnOptions {
  readonly env?: ChildEnv;
  readonly cwd?: string;
  readonly uid?: number;
  readonly gid?: number;
  /** Extra pidfile fields; `kind` defaults to the child's name. */
  readonly record?: Partial<PidRecord>;
  /** Descriptors of this process the child gets as its fds 3, 4, … (a listening socket, for one). */
  readonly passFds?: readonly number[];
}

/** Every live child, for the last-resort exit handler and the leftover check on stop. */
export const children = new Set<ChildHandle>();
let spawned = 0;

/** How many children this process has spawned so far. */
export function spawnCount(): number {
  return spawned;
}

/**
 * Spawns a long-running child in its own process group with stdout/stderr appended to
 * .stack/logs/<name>.log. Returns a handle whose `exited` promise resolves with {code, signal}.
 */
export function spawnChild(
  name: string,
  command: string,
  args: readonly string[],
  { env, cwd = ROOT, uid, gid, record = {}, passFds = [] }: SpawnOptions = {},
): ChildHandle {
  spawned++;
  mkdirp(LOG_DIR);
  const logFile = path.join(LOG_DIR, `${name}.log`);
  const fd = fs.openSync(logFile, "a");
  fs.writeSync(fd, `\n=== ${new Date().toISOString()} ${command} ${args.join(" ")}\n`);
  let child: ChildProcess;
  try {
    child = spawn(command, args, {
      cwd,
      env: env as NodeJS.ProcessEnv | undefined,
      uid,
      gid,
      detached: true,
      stdio: ["ignore", fd, fd, ...passFds],
    });
  } finally {
    fs.closeSync(fd);
  }
  let resolveExited!: (info: ExitInfo) => void;
  const handle: ChildHandle = {
    name,
    child,
    pid: child.pid,
    logFile,
    exitInfo: null,
    exited: new Promise<ExitInfo>((resolve) => {
      resolveExited = resolve;
    }),
  };
  child.once("error", (error) => {
    handle.exitInfo = { code: null, signal: null, error };
    children.delete(handle);
    resolveExited(handle.exitInfo);
  });
  child.once("exit", (code, sig) => {
    handle.exitInfo = { code, signal: sig };
    children.delete(handle);
    resolveExited(handle.exitInfo);
  });
  if (child.pid) {
    children.add(handle);
    writePidFile(name, { pid: child.pid, kind: record.kind ?? name, startTime: processStartTime(child.pid), ...record });
  }
  return handle;
}

// ---------------------------------------------------------------------------------------------
// the reaper: every child dies with this process, however it ends (reaper.mjs says how and why)

const REAPER = path.join(path.dirname(fileURLToPath(import.meta.url)), "reaper.mjs");
/** Plain Node needs nothing more; no secret of the runner's environment is copied to it. */
const REAPER_ENV: ChildEnv = { PATH: process.env.PATH };
let reaper: ChildProcess | null = null;

/**
 * Starts the reaper (scripts/stack/reaper.mjs) once per process, before any child: when this
 * process is gone, even by SIGKILL, it stops every process group this process's pidfiles name.
 * Resolves once it listens. It holds nothing open here: this process's life is its own.
 */
export async function startReaper(): Promise<void> {
  if (reaper) return;
  mkdirp(LOG_DIR);
  const fd = fs.openSync(path.join(LOG_DIR, "reaper.log"), "a", 0o600);
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, [REAPER, PID_DIR, String(process.pid)], {
      detached: true, // its own session: Ctrl-C and a closed terminal are for the runner, which stops cleanly
      stdio: ["pipe", fd, fd],
      env: REAPER_ENV as NodeJS.ProcessEnv,
    });
  } finally {
    fs.closeSync(fd);
  }
  const started = await new Promise<boolean>((resolve) => {
    child.once("spawn", () => resolve(true));
    child.once("error", () => resolve(false));
  });
  if (!started) throw new Error(`could not start ${REAPER}`);
  child.on("error", () => undefined); // a reaper that died leaves the runner running
  child.stdin?.on("error", () => undefined);
  child.unref();
  // The pipe only needs to exist: its end, when this process ends, is the message.
  (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  reaper = child;
}

/** After a clean stop: the reaper has nothing left to stop, and goes. */
export function stopReaper(): void {
  reaper?.stdin?.end();
  reaper = null;
}

export async function waitExit(handle: ChildHandle | null | undefined, timeoutMs: number): Promise<boolean> {
  if (!handle || handle.exitInfo) return true;
  return Promise.race([handle.exited.then(() => true), sleep(timeoutMs).then(() => false)]);
}

/** Signal, wait, escalate to SIGKILL. */
export async function terminate(
  handle: ChildHandle | null | undefined,
  sig: NodeJS.Signals = "SIGTERM",
  timeoutMs = STOP_TIMEOUT_MS,
): Promise<void> {
  if (!handle || handle.exitInfo) return;
  signal(handle.pid, "SIGCONT"); // a paused process cannot act on SIGTERM
  signal(handle.pid, sig);
  if (!(await waitExit(handle, timeoutMs))) {
    signal(handle.pid, "SIGKILL");
    await waitExit(handle, 2000);
  }
}

/** True while the handle's process runs. */
export function running(handle: ChildHandle | null | undefined): handle is ChildHandle {
  return Boolean(handle && !handle.exitInfo);
}

export function exitDescription(info: ExitInfo | null): string {
  if (!info) return "running";
  if (info.error) return info.error.message;
  return info.signal ? `killed by ${info.signal}` : `exit code ${info.code}`;
}
