/**
 * `npm run bench`: one contended workload (N one-shot buyers kept in flight on goods:001) run
 * against every lock, in-process and over HTTP, beside peer libraries and the articles'
 * fixed-sleep polling; then the contention curve (10 to 1,000 buyers) of the safe locks and the
 * best peers, as a table and as docs/bench-contention.svg; then the ratios the project aims for;
 * then the conference hall (bench/hall.ts: 100, 300 and 1,000 phones). `-- --table` plays only the
 * lock table, `-- --hall` only the hall. Figures, not assertions. Needs the stack's env (REDIS_NODES, DATABASE_URL, PUBLIC_URL):
 * `node scripts/bootstrap.mjs bench` provides it. Knobs (bench/knobs.ts): BENCH_BUYERS,
 * BENCH_WINDOW_MS, BENCH_LEVEL (in-process | http), BENCH_ONLY (comma-separated row labels or peer
 * names, optionally `level:label`), BENCH_CURVE (0 skips the curve), BENCH_CURVE_BUYERS,
 * BENCH_CURVE_WINDOW_MS, BENCH_CHART (the SVG's path), BENCH_BLOCKS (blocks of the ratios measured in blocks, 5).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { closeDb } from "../lib/db";
import { getEnv } from "../lib/env";
import { getLockServices } from "../lib/lock-services";
import { closeRedis, getRedis } from "../lib/redis";
import { CONFIG_KEY } from "../lib/sale/keys";
import { resetSale } from "../lib/sale/sale";
import { DEFAULT_AIM_TARGETS, aims, bestPeer, formatAim } from "./aims";
import { contentionChart, curvePanels } from "./chart";
import { assertLoopback, runHttp } from "./http";
import { readKnobs, rowFilter } from "./knobs";
import { cpuProbeMs, machineLine, readCpuTimes, stealShare } from "./machine";
import { peerRows, type PeerRow } from "./peers";
import { curveRows, curveWindowMs, mergeWindows, redlockPeerRows, tableRows, type Row } from "./rows";
import type { RowResult } from "./stats";
import { curveTable, table } from "./table";
import type { Workload } from "./workload";

/**
 * The whole benchmark stops here, whatever happens. Set so that a full run fits even when every
 * row lasts as long as the rules allow: its window, then the wait timeout and slack of its last
 * buyers (HTTP rows also wait for the stock to settle); then the hall (about 3 minutes; each of
 * its buyers and streams is bounded by its own timeout).
 */
const HARD_LIMIT_MS = 40 * 60_000;

/**
 * Runs rows one after another. One broken row must not cost the others their figures: its error
 * is kept and reported below the tables.
 */
function rowRunner(publicUrl: string, workload: Workload) {
  let warmedUp = false;
  const failed: string[] = [];
  async function run(rows: readonly Row[]): Promise<RowResult[]> {
    const results: RowResult[] = [];
    for (const row of rows) {
      if (row.level === "http" && !warmedUp) {
        // Freshly started app instances compile and connect on their first requests, and V8 needs
        // several seconds of load to optimise Next.js, Prisma and the lock code: measured cold,
        // the first HTTP rows ran at about half their steady rate. That cost belongs to no
        // strategy, so it is paid here, unmeasured, on the lock-free and the locked path.
        process.stderr.write("… http warm-up (not measured)\n");
        for (const strategy of ["atomic", "token-lua"] as const) {
          await runHttp(publicUrl, strategy, { ...workload, windowMs: 4000 }).catch(() => undefined);
        }
        warmedUp = true;
      }
      const name = `${row.level} ${row.label} · ${row.buyers} buyers`;
      process.stderr.write(`… ${name}\n`);
      try {
        results.push(...[await row.run()].flat());
      } catch (error) {
        failed.push(`${name}: ${(error as Error).message}`);
      }
    }
    return results;
  }
  return { run, failed };
}

/** The best peer of each family by the main table, to follow along the curve. */
function curvePeers(table: readonly RowResult[], peers: readonly PeerRow[]): PeerRow[] {
  return (["redlock", "mutex"] as const).flatMap((family) => {
    const best = bestPeer({ table, peers }, family);
    return peers.filter((peer) => peer.label === best?.label);
  });
}

async function main(): Promise<number> {
  const env = getEnv();
  assertLoopback(env.PUBLIC_URL);
  const knobs = readKnobs(process.env);
  const { workload, curve } = knobs;
  const selected = rowFilter(knobs.only, knobs.level);
  const peers = peerRows(workload);
  const runner = rowRunner(env.PUBLIC_URL, workload);

  const redis = getRedis();
  const savedConfig = await redis.hgetall(CONFIG_KEY);
  let tableResults: RowResult[] = [];
  let curveResults: RowResult[] = [];
  try {
    console.log(`Lock Lab benchmark · ${os.cpus().length} CPUs · Node ${process.versions.node} · ${env.REDIS_NODES.length} Redis nodes`);
    console.log(
      `${workload.buyers} one-shot buyers in flight on goods:001 · ${workload.windowMs / 1000} s per row · ` +
      `work ${workload.workMs} ms · lock TTL ${workload.ttlMs} ms · wait timeout ${workload.waitTimeoutMs} ms · ` +
      `starved = no answer after ${workload.waitTimeoutMs + workload.starvationSlackMs} ms`,
    );
    console.log("in-process: the lock + the Redis critical section (no order insert); http: the whole POST /api/buy through nginx → 2 app instances (order insert in Postgres included)");
    console.log("peers: redis-semaphore 5.8.0, node-redlock 4.2.0 and 5.0.0-beta.2, @sesamecare-oss/redlock 1.4.0, redlock-universal 0.8.5 — in-process only (a library has no HTTP endpoint)\n");
    tableResults = await runner.run(tableRows(workload, peers, env.PUBLIC_URL, knobs.blocks).filter(selected));
    const followed = curvePeers(tableResults, peers);
    const redlockPeer = followed.find((peer) => peer.family === "redlock");
    if (redlockPeer) {
      const pairs = redlockPeerRows(redlockPeer, workload, DEFAULT_AIM_TARGETS.redlockAtBuyers, knobs.blocks).filter(selected);
      tableResults.push(...(await runner.run(pairs)));
    }
    if (curve) {
      process.stderr.write(`… contention curve: ${curve.buyers.join(", ")} buyers · ${curve.buyers.map((b) => curveWindowMs(curve.windowMs, b) / 1000).join(" / ")} s per point · peers: ${followed.map((p) => p.label).join(", ") || "none measured"} · then the safe locks back down from ${Math.max(...curve.buyers)} to ${DEFAULT_AIM_TARGETS.contendedFromBuyers} buyers\n`);
      curveResults = mergeWindows(await runner.run(curveRows(curve, followed, workload, env.PUBLIC_URL, DEFAULT_AIM_TARGETS.contendedFromBuyers).filter(selected)));
    }
  } finally {
    // Leave the store as we found it: the shared config back, and a fresh sale of normal size.
    const multi = redis.multi().del(CONFIG_KEY);
    if (Object.keys(savedConfig).length) multi.hset(CONFIG_KEY, savedConfig);
    await multi.exec();
    await resetSale().catch(() => {});
  }

  console.log(table(tableResults));
  if (curveResults.length) {
    console.log(`\nContention curve (${curve ? curve.buyers.map((b) => `${curveWindowMs(curve.windowMs, b) / 1000} s at ${b}`).join(", ") : "–"} per point; the safe locks' points from ${DEFAULT_AIM_TARGETS.contendedFromBuyers} buyers on are the mean of two windows, one on the way up and one back down): purchases/s · p50 · p99 ms, then busy, errors and starved buyers where there were any\n`);
    console.log(curveTable(curveResults));
    const chartPath = path.resolve(knobs.chartPath);
    fs.mkdirSync(path.dirname(chartPath), { recursive: true });
    fs.writeFileSync(chartPath, contentionChart(curvePanels(curveResults)));
    console.log(`\nchart: ${path.relative(process.cwd(), chartPath)}`);
  }
  console.log("");
  for (const line of runner.failed) console.log(`✗ row failed: ${line}`);
  for (const aim of aims({ table: tableResults, curve: curveResults, peers })) console.log(formatAim(aim));
  return runner.failed.length ? 1 : 0;
}

const hardStop = setTimeout(() => {
  console.error(`✗ the benchmark did not finish within ${HARD_LIMIT_MS / 60_000} minutes; stopping`);
  process.exit(1);
}, HARD_LIMIT_MS);

// `npm run bench`: the lock table, then the conference hall (bench/hall.ts) and the flood of the
// public pages (bench/flood.ts); `-- --table`, `-- --hall` or `-- --flood` plays only that.
async function tableThenHall(): Promise<number> {
  if (process.argv.includes("--flood")) {
    const { runFloodBench } = await import("./flood");
    return runFloodBench();
  }
  const hallOnly = process.argv.includes("--hall");
  const tableOnly = process.argv.includes("--table");
  const probeBefore = cpuProbeMs();
  const atStart = readCpuTimes();
  let code = 0;
  if (!hallOnly) code = await main();
  const afterTable = readCpuTimes();
  if (!tableOnly) {
    const { runHallBench } = await import("./hall");
    code = Math.max(code, await runHallBench());
    const { runFloodBench } = await import("./flood");
    code = Math.max(code, await runFloodBench());
  }
  const atEnd = readCpuTimes();
  console.log(`\n${machineLine(probeBefore, cpuProbeMs(), [
    { name: "the whole run", share: stealShare(atStart, atEnd) },
    ...(hallOnly ? [] : [{ name: "the lock table", share: stealShare(atStart, afterTable) }]),
    ...(tableOnly ? [] : [{ name: "the hall", share: stealShare(afterTable, atEnd) }]),
  ])}`);
  return code;
}

tableThenHall()
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
