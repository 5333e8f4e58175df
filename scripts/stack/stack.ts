// Lock Lab local stack: five independent Redis nodes, PostgreSQL, N Next.js instances and nginx in
// front, supervised from one Node process with a small control API for fault injection (stop a
// Redis node, pause an instance, kill it, stop Postgres).
//
//   node --import tsx scripts/stack/main.ts   run the stack in the foreground (Ctrl-C stops everything)
//   import { startStack, stopStack }           used by scripts/bootstrap.mjs (demo, stack, test, bench)
//
// Every child runs in its own process group, so Ctrl-C reaches only the supervisor, which stops the
// children in order (nginx, apps, Redis, Postgres) and waits for each. Pidfiles under .stack/pids
// name every child's group: a reaper process (reaper.mjs) stops them all the moment the supervisor
// is gone, even by SIGKILL or the OOM killer, and the next start cleans up whatever is left. The
// services themselves are in services/ (listed in services/index.ts); this module orchestrates them.

import crypto from "node:crypto";
import fs from "node:fs";
import type http from "node:http";
import path from "node:path";
import { type StackConfig, readConfig } from "./config";
import { controlRoutes, getStatus as statusOf, startControlServer } from "./control";
import { StackError } from "./errors";
import { ok, say, secondsSince, setQuiet, since, warn } from "./log";
import { migrateAndSeed } from "./migrate";
import { ENV_FILE, LOG_DIR, PID_DIR, STACK_DIR, makePrivateDir, makeStackDir, writePrivateFile } from "./paths";
import { foreignPort, portAnswers } from "./ports";
import { children, removePidFile, signal, spawnCount, startReaper, stopReaper, writePidFile } from "./processes";
import { STAGES, type Service, type Stage, type StackContext, type StackEnv, type StartOptions } from "./service";
import { SERVICES } from "./services/index";
import { LAB_RUNNER_RULE, cleanStale, stopRecorded } from "./stale";

export { DEFAULTS, readConfig } from "./config";
export { StackError } from "./errors";
export { ROOT, STACK_DIR } from "./paths";
export { portAnswers } from "./ports";
export { isAlive } from "./processes";
export { redisCommand, redisPing } from "./resp";
export { renderTemplate } from "./services/nginx";
export type { StackEnv, StartOptions } from "./service";

/**
 * The admin password: ADMIN_PASSWORD when set; otherwise one generated on the first start and kept
 * in .stack/admin-password (ignored by git), so it stays the same across demo runs.
 */
export function adminPassword(): string {
  if (process.env.ADMIN_PASSWORD) return process.env.ADMIN_PASSWORD;
  const file = path.join(STACK_DIR, "admin-password");
  makeStackDir();
  try {
    const saved = fs.readFileSync(file, "utf8").trim();
    if (saved.length >= 8) {
      fs.chmodSync(file, 0o600); // one a copy or an old checkout left readable
      return saved;
    }
  } catch {
    // first start
  }
  const created = crypto.randomBytes(9).toString("base64url");
  writePrivateFile(file, `${created}\n`);
  return created;
}

/** The variables the stack hands to its children, to bootstrap.mjs and (in .stack/stack.env) to
 * other processes. */
export function stackEnv(cfg: StackConfig, password: string): StackEnv {
  return {
    ADMIN_PASSWORD: password,
    REDIS_NODES: cfg.redis.map((n) => n.addr).join(","),
    REDIS_CLUSTER_NODES: cfg.redisCluster.map((n) => n.addr).join(","),
    SENTINELS: cfg.sentinels.map((n) => n.addr).join(","),
    SENTINEL_MASTER: cfg.sentinelMaster,
    SENTINEL_REDIS: cfg.sentinelRedis.map((n) => n.addr).join(","),
    ZOOKEEPER_HOSTS: cfg.zookeeper.map((n) => n.addr).join(","),
    ETCD_ENDPOINTS: cfg.etcd.map((n) => n.addr).join(","),
    DATABASE_URL: cfg.database.url,
    PGBOUNCER_URL: cfg.pgbouncer.url,
    APP_PORTS: cfg.apps.map((a) => a.port).join(","),
    PUBLIC_PORT: String(cfg.publicPort),
    PUBLIC_URL: `http://127.0.0.1:${cfg.publicPort}`,
    STACK_CONTROL_PORT: String(cfg.controlPort),
    STACK_CONTROL_URL: `http://127.0.0.1:${cfg.controlPort}`,
    STACK_CONTROL_TOKEN: cfg.token,
  };
}

/** .stack/stack.env: one NAME=value line per variable. */
export function envFileText(env: StackEnv): string {
  return `${Object.entries(env)
    .map(([k, v]) => `${k}=${v}`)
    .join("\n")}\n`;
}

/** Services stop in reverse: the stages backwards, and backwards within a stage, one at a time. */
export function stopOrder<T extends { readonly stage: Stage }>(services: readonly T[]): T[] {
  return [...STAGES].reverse().flatMap((stage) => services.filter((s) => s.stage === stage).reverse());
}

class Stack implements StackContext {
  readonly services: readonly Service[];
  /** Set once stale processes are gone and the supervisor's pidfile is written. */
  env!: StackEnv;
  stopping = false;
  control: http.Server | null = null;
  /** Children spawned before this stack: "stack stopped" is said only if this one started any. */
  readonly spawnedBefore = spawnCount();

  constructor(
    readonly cfg: StackConfig,
    readonly opts: StartOptions,
  ) {
    this.services = SERVICES.map((factory) => factory(this));
  }

  faultsActive(): boolean {
    return this.services.some((s) => s.faulted?.() ?? false);
  }

  async startStage(stage: Stage): Promise<void> {
    await Promise.all(this.services.filter((s) => s.stage === stage).map((s) => s.start()));
  }
}

let current: Stack | null = null;
let stopping: Promise<void> | null = null; // never reset: one stack per process

/** Checks every port before anything starts, so a conflict fails fast with the variable to change. */
async function claimPorts(stack: Stack): Promise<void> {
  for (const service of stack.services) await service.claim();
  const { controlPort } = stack.cfg;
  if (await portAnswers("127.0.0.1", controlPort)) throw foreignPort(controlPort, "STACK_CONTROL_PORT", "stack control API");
}

export interface StartedStack {
  readonly env: StackEnv;
  status(): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

/**
 * Starts Redis ×N, Postgres (+ migrate + seed), the app instances, nginx and the control API.
 * Resolves with { env, status(), stop() } once everything answers. On failure it stops what it
 * started and rejects with a StackError whose message says what to do.
 */
export async function startStack(opts: StartOptions = {}): Promise<StartedStack> {
  if (current) throw new StackError("stack already started in this process");
  setQuiet(Boolean(opts.quiet));
  const t0 = Date.now();
  const cfg = readConfig();
  makeStackDir(); // the secrets, pidfiles and logs below are nobody else's
  makePrivateDir(LOG_DIR);
  makePrivateDir(PID_DIR);
  const stack = new Stack(cfg, opts);
  await cleanStale(stack.services.flatMap((s) => (s.stale ? [s.stale] : [])));
  for (const service of stack.services) service.cleanup?.();
  writePidFile("supervisor", { pid: process.pid, kind: "supervisor" });
  await startReaper(); // before the first child: none may outlive this process, however it ends
  stack.env = stackEnv(cfg, adminPassword());
  current = stack;
  if (opts.handleSignals !== false) installSignalHandlers();
  try {
    await claimPorts(stack);
    await stack.startStage("network");
    await stack.startStage("store");
    if (opts.seed !== false) migrateAndSeed({ ...process.env, ...stack.env });
    stack.control = await startControlServer({
      port: cfg.controlPort,
      token: cfg.token,
      routes: controlRoutes(stack.services),
      isStopping: () => stack.stopping,
    });
    ok(`control API ${stack.env.STACK_CONTROL_URL}`);
    await stack.startStage("app");
    await stack.startStage("proxy");
    writePrivateFile(ENV_FILE, envFileText(stack.env)); // ADMIN_PASSWORD, STACK_CONTROL_TOKEN: 0600
    say(`✓ stack ready in ${secondsSince(t0)} — logs in ${path.relative(process.cwd(), LOG_DIR) || LOG_DIR}`);
  } catch (err) {
    await stopStack();
    throw err;
  }
  return { env: { ...stack.env }, status: () => statusOf(stack.services), stop: stopStack };
}

/** The running stack's /status answer. */
export async function getStatus(): Promise<Record<string, unknown>> {
  if (!current) throw new StackError("stack is not running");
  return statusOf(current.services);
}

/** Stops everything this process started, in order, and waits for each part to exit. */
export function stopStack(): Promise<void> {
  if (stopping) return stopping;
  const stack = current;
  if (!stack) return Promise.resolve();
  stack.stopping = true;
  stopping = (async () => {
    const t0 = Date.now();
    stack.control?.close();
    stack.control?.closeAllConnections?.();
    await stopRecorded(LAB_RUNNER_RULE); // a lab run in progress, before the servers it uses go
    for (const service of stopOrder(stack.services)) await service.stop();
    const left = [...children].map((h) => `${h.name} (pid ${h.pid})`);
    for (const h of children) signal(h.pid, "SIGKILL");
    removePidFile("supervisor");
    fs.rmSync(ENV_FILE, { force: true });
    stopReaper();
    if (left.length) warn(`killed leftover processes: ${left.join(", ")}`);
    else if (spawnCount() > stack.spawnedBefore) say(`✓ stack stopped (${since(t0)}), no process left`);
    current = null;
  })();
  return stopping;
}

let signalsInstalled = false;
function installSignalHandlers(): void {
  if (signalsInstalled) return;
  signalsInstalled = true;
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.on(sig, () => {
      if (stopping) return; // a second Ctrl-C while stopping: keep waiting for a clean stop
      say(`\n… ${sig}: stopping the stack`);
      void stopStack().finally(() => process.exit(sig === "SIGINT" ? 130 : 143));
    });
  }
  // Last resort if the supervisor dies of an exception: no child may outlive it.
  process.on("exit", () => {
    for (const h of children) {
      if (h.name === "postgres") signal(h.pid, "SIGQUIT", false);
      else {
        signal(h.pid, "SIGCONT");
        signal(h.pid, "SIGKILL");
      }
    }
  });
}
