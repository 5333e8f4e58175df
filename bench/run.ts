/**
 * `npm run bench`: one contended workload (N one-shot buyers kept in flight on goods:001) run
 * against every lock, in-process and over HTTP, plus node-redlock and the articles' fixed-sleep
 * polling as peers; prints one table and the ratios the project aims for. Figures, not assertions.
 * Needs the stack's env (REDIS_NODES, DATABASE_URL, PUBLIC_URL): `node scripts/bootstrap.mjs bench`
 * provides it. Knobs: BENCH_BUYERS, BENCH_WINDOW_MS, BENCH_LEVEL (in-process | http), BENCH_ONLY
 * (comma-separated row labels, optionally `level:label`).
 */
import os from "node:os";
import { closeDb } from "../lib/db";
import { getEnv } from "../lib/env";
import { getLockServices } from "../lib/lock-services";
import { getStrategy } from "../lib/locks/registry";
import type { StrategyName } from "../lib/locks/strategies";
import type { UnitLock } from "../lib/purchase/purchase";
import { closeRedis, getRedis } from "../lib/redis";
import { setTimelineRecording } from "../lib/sale/config";
import { CONFIG_KEY } from "../lib/sale/keys";
import { resetSale } from "../lib/sale/sale";
import { assertLoopback, runHttp } from "./http";
import { runInProcess } from "./in-process";
import { fixedSleepPeer } from "./peers/fixed-sleep";
import { NODE_REDLOCK_DEFAULT, nodeRedlockPeer } from "./peers/node-redlock";
import type { RowResult } from "./stats";
import { DEFAULT_WORKLOAD, type Workload } from "./workload";

/** The whole benchmark stops here, whatever happens. */
const HARD_LIMIT_MS = 10 * 60_000;

const PROJECT_ROWS: readonly StrategyName[] = ["none", "local", "setnx", "token-lua", "redlock", "pg-for-update", "atomic", "sentinel", "sentinel-wait", "zookeeper", "etcd"];
const UNSAFE: ReadonlySet<string> = new Set(["none", "local", "setnx"]);

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got ${raw}`);
  return value;
}

/**
 * node-redlock tuned for this workload: retries 50 ± 50 ms apart for as long as our buyers wait
 * (the best of the settings tried; shorter delays only add failed rounds on all five nodes).
 */
function nodeRedlockTuned(workload: Workload) {
  return { retryDelay: 50, retryJitter: 50, retryCount: Math.ceil(workload.waitTimeoutMs / 50) };
}

interface Row {
  readonly label: string;
  readonly level: "in-process" | "http";
  /** One result, or several for a row measured in parts (the timeline's on/off pair). */
  run(): Promise<RowResult | RowResult[]>;
}

function rows(workload: Workload, publicUrl: string): Row[] {
  const inProcess = (label: string, lock: () => UnitLock): Row => ({
    label,
    level: "in-process",
    run: () => runInProcess(label, lock(), workload),
  });
  const tuned = nodeRedlockTuned(workload);
  return [
    ...PROJECT_ROWS.map((name) => inProcess(name, () => getStrategy(name))),
    inProcess("node-redlock (defaults)", () => nodeRedlockPeer(NODE_REDLOCK_DEFAULT)),
    inProcess(`node-redlock (retry ${tuned.retryDelay}±${tuned.retryJitter} ms)`, () => nodeRedlockPeer(tuned)),
    inProcess("fixed-sleep poll 200 ms", () => fixedSleepPeer(200)),
    inProcess("fixed-sleep poll 50 ms", () => fixedSleepPeer(50)),
    ...PROJECT_ROWS.map((name): Row => ({ label: name, level: "http", run: () => runHttp(publicUrl, name, workload) })),
    // The holder timeline's cost: recording on and off, measured in the order on, off, off, on so
    // that warming up over the run favours neither side; each side is the mean of its two.
    ...TIMELINE_ROWS.map((name): Row => ({
      label: `${name}${TIMELINE_ON}`,
      level: "http",
      async run() {
        const measure = async (on: boolean) => {
          await setTimelineRecording(on);
          return runHttp(publicUrl, name, workload, `${name}${on ? TIMELINE_ON : TIMELINE_OFF}`);
        };
        try {
          const on1 = await measure(true);
          const off1 = await measure(false);
          const off2 = await measure(false);
          const on2 = await measure(true);
          return [meanOf(on1, on2), meanOf(off1, off2)];
        } finally {
          await setTimelineRecording(true);
        }
      },
    })),
  ];
}

/** Two measurements of one row as one: rates and latencies averaged, counts added. */
function meanOf(a: RowResult, b: RowResult): RowResult {
  const mean = (x: number, y: number) => (x + y) / 2;
  return {
    ...a,
    windowMs: a.windowMs + b.windowMs,
    attempts: a.attempts + b.attempts,
    bought: a.bought + b.bought,
    busy: a.busy + b.busy,
    soldOut: a.soldOut + b.soldOut,
    errors: a.errors + b.errors,
    starved: a.starved + b.starved,
    purchasesPerSecond: mean(a.purchasesPerSecond, b.purchasesPerSecond),
    p50: mean(a.p50, b.p50),
    p99: mean(a.p99, b.p99),
    max: Math.max(a.max, b.max),
    redisCommandsPerPurchase: mean(a.redisCommandsPerPurchase, b.redisCommandsPerPurchase),
    peakHolders: Math.max(a.peakHolders, b.peakHolders),
    lostUpdates: a.lostUpdates + b.lostUpdates,
  };
}

const TIMELINE_ROWS: readonly StrategyName[] = ["token-lua", "atomic"];
const TIMELINE_ON = " (timeline on)";
const TIMELINE_OFF = " (timeline off)";

const fixed = (value: number, digits = 0) => value.toFixed(digits);
const percent = (part: number, whole: number) => (whole ? `${((100 * part) / whole).toFixed(1)} %` : "–");

function table(results: readonly RowResult[]): string {
  const header = [
    "level", "lock", "purchases/s", "p50 ms", "p99 ms", "max ms", "busy", "errors", "starved",
    "Redis cmds/purchase", "peak holders", "lost updates",
  ];
  const lines = [`| ${header.join(" | ")} |`, `|${header.map((_, i) => (i < 2 ? "---" : "--:")).join("|")}|`];
  for (const r of results) {
    const lock = UNSAFE.has(r.label) ? `${r.label} (unsafe)` : r.label;
    lines.push(`| ${[
      r.level, lock, fixed(r.purchasesPerSecond), fixed(r.p50, 1), fixed(r.p99, 1), fixed(r.max, 0),
      percent(r.busy, r.attempts), String(r.errors), String(r.starved),
      fixed(r.redisCommandsPerPurchase, 1), String(r.peakHolders), String(r.lostUpdates),
    ].join(" | ")} |`);
  }
  return lines.join("\n");
}

function ratios(results: readonly RowResult[]): string[] {
  const find = (level: RowResult["level"], label: string) => results.find((r) => r.level === level && r.label === label);
  const out: string[] = [];
  const mark = (ok: boolean) => (ok ? "✓" : "✗");
  const redlock = find("in-process", "redlock");
  const peer = find("in-process", "node-redlock (defaults)");
  if (redlock && peer) {
    const throughput = redlock.purchasesPerSecond / Math.max(peer.purchasesPerSecond, 1e-9);
    const p99 = redlock.p99 / Math.max(peer.p99, 1e-9);
    out.push(`${mark(throughput >= 3)} redlock ÷ node-redlock (defaults), purchases/s: ${throughput.toFixed(2)} (aim ≥ 3)`);
    out.push(`${mark(p99 <= 1 / 3)} redlock ÷ node-redlock (defaults), p99 latency: ${p99.toFixed(3)} (aim ≤ 0.333)`);
  }
  const token = find("http", "token-lua");
  const atomic = find("http", "atomic");
  if (token && atomic) {
    const ratio = token.purchasesPerSecond / Math.max(atomic.purchasesPerSecond, 1e-9);
    out.push(`${mark(ratio >= 0.5)} token-lua ÷ atomic over HTTP, purchases/s: ${ratio.toFixed(2)} (aim ≥ 0.5)`);
  }
  for (const name of TIMELINE_ROWS) {
    const on = find("http", `${name}${TIMELINE_ON}`);
    const off = find("http", `${name}${TIMELINE_OFF}`);
    if (!on || !off) continue;
    const ratio = on.purchasesPerSecond / Math.max(off.purchasesPerSecond, 1e-9);
    out.push(`${mark(ratio >= 0.95)} ${name} over HTTP, timeline recording on ÷ off (measured on, off, off, on), purchases/s: ${ratio.toFixed(3)} (aim ≥ 0.95)`);
  }
  const starved = results.filter((r) => r.starved > 0);
  out.push(starved.length === 0
    ? "✓ no buyer starved: every buyer was served or refused as busy within its wait timeout"
    : `✗ starved buyers in: ${starved.map((r) => `${r.level} ${r.label} (${r.starved})`).join(", ")}`);
  return out;
}

async function main(): Promise<number> {
  const env = getEnv();
  assertLoopback(env.PUBLIC_URL);
  const workload: Workload = {
    ...DEFAULT_WORKLOAD,
    buyers: positiveInt("BENCH_BUYERS", DEFAULT_WORKLOAD.buyers),
    windowMs: Math.min(positiveInt("BENCH_WINDOW_MS", DEFAULT_WORKLOAD.windowMs), 30_000),
  };
  const only = (process.env.BENCH_ONLY ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  const level = process.env.BENCH_LEVEL;
  const selected = rows(workload, env.PUBLIC_URL).filter(
    (row) => (!level || row.level === level)
      && (only.length === 0 || only.some((o) => o === row.label || o === `${row.level}:${row.label}`)),
  );
  const failed: string[] = [];

  const redis = getRedis();
  const savedConfig = await redis.hgetall(CONFIG_KEY);
  const results: RowResult[] = [];
  try {
    console.log(`Lock Lab benchmark · ${os.cpus().length} CPUs · Node ${process.versions.node} · ${env.REDIS_NODES.length} Redis nodes`);
    console.log(
      `${workload.buyers} one-shot buyers in flight on goods:001 · ${workload.windowMs / 1000} s per row · ` +
      `work ${workload.workMs} ms · lock TTL ${workload.ttlMs} ms · wait timeout ${workload.waitTimeoutMs} ms · ` +
      `starved = no answer after ${workload.waitTimeoutMs + workload.starvationSlackMs} ms`,
    );
    console.log("in-process: the lock + the Redis critical section (no order insert); http: the whole POST /api/buy through nginx → 2 app instances (order insert in Postgres included)\n");
    let warmedUp = false;
    for (const row of selected) {
      if (row.level === "http" && !warmedUp) {
        // Freshly started app instances compile and connect on their first requests, and V8 needs
        // several seconds of load to optimise Next.js, Prisma and the lock code: measured cold,
        // the first HTTP rows ran at about half their steady rate. That cost belongs to no
        // strategy, so it is paid here, unmeasured, on the lock-free and the locked path.
        process.stderr.write("… http warm-up (not measured)\n");
        for (const strategy of ["atomic", "token-lua"] as const) {
          await runHttp(env.PUBLIC_URL, strategy, { ...workload, windowMs: 4000 }).catch(() => undefined);
        }
        warmedUp = true;
      }
      process.stderr.write(`… ${row.level} ${row.label}\n`);
      try {
        results.push(...[await row.run()].flat());
      } catch (error) {
        // One broken row must not cost the others their figures; it is reported below the table.
        failed.push(`${row.level} ${row.label}: ${(error as Error).message}`);
      }
    }
  } finally {
    // Leave the store as we found it: the shared config back, and a fresh sale of normal size.
    const multi = redis.multi().del(CONFIG_KEY);
    if (Object.keys(savedConfig).length) multi.hset(CONFIG_KEY, savedConfig);
    await multi.exec();
    await resetSale().catch(() => {});
  }
  console.log(table(results));
  console.log("");
  for (const line of failed) console.log(`✗ row failed: ${line}`);
  for (const line of ratios(results)) console.log(line);
  return failed.length ? 1 : 0;
}

const hardStop = setTimeout(() => {
  console.error(`✗ the benchmark did not finish within ${HARD_LIMIT_MS / 60_000} minutes; stopping`);
  process.exit(1);
}, HARD_LIMIT_MS);

main()
  .then(async (code) => {
    await Promise.allSettled([closeRedis(), closeDb(), getLockServices().close()]);
    clearTimeout(hardStop);
    process.exitCode = code;
    // Buyers abandoned as starved may still hold timers; they must not keep the process alive.
    setTimeout(() => process.exit(code), 1000).unref();
  })
  .catch((error) => {
    console.error(error instanceof Error ? error.stack : error);
    process.exit(1);
  });
