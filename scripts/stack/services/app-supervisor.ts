// One Next.js instance's life, for services/apps.ts (not a service itself): `next start` of the
// production build as a child, readiness, and the restart of an instance that exits unexpectedly,
// unless it keeps dying.

import path from "node:path";
import { SALE_KEY, saleCounterKeys } from "../../../lib/sale/keys";
import { INSTANCE_NODE_FLAGS, bindAppSocket, handOver } from "../app-socket";
import type { AppConfig } from "../config";
import { StackError } from "../errors";
import { say, since, tail, warn } from "../log";
import { LOG_DIR, PID_DIR, ROOT } from "../paths";
import { spawnGid } from "../network";
import { httpStatus } from "../ports";
import { redisReply } from "../resp";
import {
  type ChildEnv,
  type ChildHandle,
  type ExitInfo,
  exitDescription,
  removePidFile,
  running,
  signal,
  sleep,
  spawnChild,
  terminate,
  waitFor,
} from "../processes";
import type { StackContext } from "../service";

const NEXT_BIN = path.join(ROOT, "node_modules", "next", "dist", "bin", "next");
const APP_READY_TIMEOUT_MS = 60_000;
/** More unexpected exits than this within CRASH_WINDOW_MS and an instance is left stopped. */
const MAX_CRASHES = 5;
const CRASH_WINDOW_MS = 60_000;

export type AppState = "stopped" | "starting" | "running" | "paused";

export interface App extends AppConfig {
  /** Started and supervised by the stack; false for a server the user pointed us at, with apps:
   * false, or without a production build. */
  managed: boolean;
  unmanagedReason?: string;
  state: AppState;
  handle: ChildHandle | null;
  /** The stack (stop route, stopStack, a failed start) ended it: its exit is not a crash. */
  intentionalStop: boolean;
  /** Killed through the control API: restarted at once and not counted as a crash. */
  killRequested: boolean;
  /** When it exited unexpectedly, within the last minute. */
  crashes: number[];
  /** The restart after its last exit, while one runs (and after, resolved). */
  restarting: Promise<void> | null;
}

export function newApp(cfg: AppConfig): App {
  return {
    ...cfg,
    managed: false,
    state: "stopped",
    handle: null,
    intentionalStop: false,
    killRequested: false,
    crashes: [],
    restarting: null,
  };
}

/**
 * After an exit that was not asked for: the crashes that still count (those of the last minute,
 * plus this one unless the control API killed it) and whether to restart the instance.
 */
export function crashVerdict(
  previous: readonly number[],
  now: number,
  killRequested: boolean,
): { crashes: number[]; restart: boolean } {
  const crashes = previous.filter((t) => now - t < CRASH_WINDOW_MS);
  if (!killRequested) crashes.push(now);
  return { crashes, restart: crashes.length <= MAX_CRASHES };
}

function appEnv(ctx: StackContext, app: App): ChildEnv {
  return {
    ...process.env,
    ...ctx.env,
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    PORT: String(app.port),
    APP_INSTANCE: app.instance,
    LOCKLAB_STACK_ROOT: ROOT,
    // Where the processes an instance starts keep their logs and, for a lab run's detached runner,
    // its pidfile as this runner's: lib/stack/run-files.ts.
    LOCKLAB_LOG_DIR: LOG_DIR,
    LOCKLAB_PID_DIR: PID_DIR,
    LOCKLAB_SUPERVISOR_PID: String(process.pid),
  };
}

/** 200 from /api/health is ready. While the app has no health route (404), any answer on / is.
 * With a fault injected (a Redis node or Postgres stopped) health may rightly say 503; then an
 * answer at all is enough to call a restarted instance ready. */
async function appReady(app: App, lenient: boolean): Promise<boolean> {
  const base = `http://127.0.0.1:${app.port}`;
  const status = await httpStatus(`${base}/api/health`, 2000);
  if (status === 200) return true;
  if (status === 404) return (await httpStatus(`${base}/`, 5000)) > 0;
  return lenient && status > 0;
}

/** Resolves with the start time once the instance answers; throws a StackError if it does not. */
export async function startApp(ctx: StackContext, app: App): Promise<number> {
  const t0 = Date.now();
  app.state = "starting";
  app.intentionalStop = false;
  const args = [...INSTANCE_NODE_FLAGS, NEXT_BIN, "start", "-p", String(app.port), "-H", "127.0.0.1"];
  const listener = await bindAppSocket("127.0.0.1", app.port).catch((error: Error) => {
    app.state = "stopped";
    throw new StackError(`port ${app.port} is not free for the app instance: ${error.message}`);
  });
  let handle: ChildHandle;
  try {
    const socket = handOver(listener);
    handle = spawnChild(app.instance, process.execPath, args, {
      env: { ...appEnv(ctx, app), ...socket.env },
      gid: spawnGid("app", app.index), // its sockets say which instance they are: the network service cuts by it
      record: { kind: "app", port: app.port },
      passFds: socket.fds,
    });
  } finally {
    listener.close();
  }
  app.handle = handle;
  void handle.exited.then((exit) => onAppExit(ctx, app, handle, exit));
  const ready = await waitFor(
    async () => {
      if (handle.exitInfo) return true;
      return appReady(app, ctx.faultsActive());
    },
    APP_READY_TIMEOUT_MS,
    250,
  );
  if (!ready || handle.exitInfo) {
    const why = handle.exitInfo ? exitDescription(handle.exitInfo) : `not ready after ${APP_READY_TIMEOUT_MS / 1000} s`;
    if (!handle.exitInfo) {
      app.intentionalStop = true;
      await terminate(handle, "SIGKILL");
    }
    app.state = "stopped";
    throw new StackError(`${app.instance} on port ${app.port} did not start (${why}); log ${handle.logFile}:\n${tail(handle.logFile)}`);
  }
  app.state = "running";
  return t0;
}

/**
 * An instance that exited is inside no critical section: its count of holders inside (kept per
 * instance in Redis node 1, which only it takes back) is forgotten now. Left until the instance
 * started again (instrumentation.ts), a holder killed inside counted on after its lease ran out,
 * beside the next holder on the other instance: a safe lock's peak holders read 2.
 */
async function forgetHolders(ctx: StackContext, instance: string): Promise<void> {
  const node = ctx.cfg.redis[0];
  if (!node) return;
  const saleId = await redisReply(node.host, node.port, ["HGET", SALE_KEY, "id"], 500).catch(() => undefined);
  if (typeof saleId !== "string") return;
  await redisReply(node.host, node.port, ["HDEL", saleCounterKeys(Number(saleId)).holders, instance], 500).catch(() => undefined);
}

function onAppExit(ctx: StackContext, app: App, handle: ChildHandle, exit: ExitInfo): void {
  if (app.handle !== handle) return;
  removePidFile(app.instance);
  if (!ctx.stopping) void forgetHolders(ctx, app.instance);
  if (ctx.stopping || app.intentionalStop || app.state === "starting") {
    if (app.state !== "starting") app.state = "stopped";
    return;
  }
  app.state = "stopped";
  // A kill asked for through the control API (the lab's crash scenarios) is not a crash: only
  // unexpected exits count towards giving up on an instance that keeps dying.
  const { crashes, restart } = crashVerdict(app.crashes, Date.now(), app.killRequested);
  app.crashes = crashes;
  if (!restart) {
    warn(`${app.instance} exited (${exitDescription(exit)}) ${crashes.length} times in a minute; not restarting. Log ${handle.logFile}`);
    return;
  }
  say(`… ${app.instance} exited (${exitDescription(exit)}); restarting`);
  app.restarting = (async () => {
    await sleep(app.killRequested ? 0 : 500);
    if (ctx.stopping || app.handle !== handle) return;
    try {
      const t0 = await startApp(ctx, app);
      say(`✓ ${app.instance} restarted, pid ${app.handle.pid} (${since(t0)})`);
    } catch (err) {
      warn((err as Error).message);
    } finally {
      app.killRequested = false;
    }
  })();
}

export async function stopApp(app: App): Promise<void> {
  if (!running(app.handle)) {
    app.state = "stopped";
    return;
  }
  app.intentionalStop = true;
  await terminate(app.handle, "SIGTERM", 5000);
  app.state = "stopped";
}

export async function resumeApp(app: App): Promise<void> {
  if (app.state === "paused" && running(app.handle)) {
    signal(app.handle.pid, "SIGCONT");
    app.state = "running";
  }
}

/** Waits for a restart under way; resumes a paused instance; starts a stopped one afresh. */
export async function startAppAgain(ctx: StackContext, app: App): Promise<void> {
  if (app.restarting) await app.restarting;
  if (running(app.handle)) return resumeApp(app);
  app.crashes = [];
  await startApp(ctx, app);
}
