import { spawn } from "node:child_process";
import path from "node:path";
import { getStrategy } from "../lib/locks/registry";
import type { UnitLock } from "../lib/purchase/purchase";
import { runInProcess } from "./in-process";
import { CEILING_LOCAL, CEILING_LOCKS, CEILING_ROUNDS, SERIAL_CEILING } from "./labels";
import { serialCeiling } from "./serial-ceiling";
import { meanOfAll, type RowResult } from "./stats";
import type { Workload } from "./workload";

/** The numbers of buyers the locks are measured against the serial ceiling at. */
export const CEILING_BUYERS: readonly number[] = [50, 200];

/**
 * Rounds of the ceiling row, and each window's length in them. Thirty, not twenty: at the serial
 * limit `local` and the Redis locks stand a few per cent apart while one round's ratio moves by
 * ±10 % with the machine, and twenty rounds' medians of `local` ÷ a lock moved by ±0.03 from run to
 * run (docs/benchmarks.md); thirty narrow that by a fifth for 100 s more of the bench.
 */
export const CEILING_ROUND_COUNT = 30;
export const CEILING_ROUND_MS = 1000;

/**
 * The serial ceiling and the locks measured against it (CEILING_LOCKS, and `local`) in
 * CEILING_ROUND_COUNT rounds of one short window each — ceiling, token-lua, redlock, local, the order
 * reversed every other round — at each of CEILING_BUYERS; the aim takes each round's lock ÷ ceiling
 * and judges the median. This machine's speed drifts by ±25 % over seconds (the ceiling read
 * 2,075–4,033/s in 4 s windows minutes apart): three windows a second apart share their moment, and
 * the median of the rounds leaves the slow ones out. A window this short costs a lock its first
 * acquire and its line's start, which the ceiling does not pay, so it can only understate a lock.
 * Each side is the mean of its windows and keeps every window's figure (`samples`, and the process's
 * CPU per purchase in `cpuSamples`) in round order.
 */
export async function ceilingRounds(workload: Workload): Promise<RowResult[]> {
  const results: RowResult[] = [];
  const order: [string, () => UnitLock][] = [
    [SERIAL_CEILING, serialCeiling],
    ...[...CEILING_LOCKS, CEILING_LOCAL].map((name): [string, () => UnitLock] => [name, () => getStrategy(name)]),
  ];
  for (const buyers of CEILING_BUYERS) {
    const at: Workload = { ...workload, buyers, windowMs: CEILING_ROUND_MS };
    const windows = new Map<string, RowResult[]>(order.map(([label]) => [label, []]));
    for (let round = 0; round < CEILING_ROUND_COUNT; round += 1) {
      for (const [label, lock] of round % 2 ? [...order].reverse() : order) {
        windows.get(label)!.push(await runInProcess(`${label}${CEILING_ROUNDS}`, lock(), at));
      }
    }
    results.push(...[...windows.values()].map(meanOfAll));
  }
  return results;
}

/** The line the child prints its results on, as JSON after this marker. */
export const CEILING_RESULTS_MARK = "ceiling-rounds-results ";
/** The rounds take about 3 minutes here; a child still running after this is stopped. */
const CHILD_LIMIT_MS = 15 * 60_000;

/**
 * `ceilingRounds` in a fresh Node process (bench/ceiling-child.ts). Run in the bench process after
 * the other rows, the locks' code paths carried what two dozen other locks and peers had run through
 * them: on one stack, 20 rounds at 50 and 200 buyers read `token-lua` +2 to +12 µs of CPU per
 * purchase over the ceiling in a process of their own, and +14 to +24 µs after the in-process table —
 * while the ceiling itself cost the same (docs/benchmarks.md). Like a benchmark harness that forks
 * a VM per benchmark, the ratio is measured where nothing else has run.
 */
export function ceilingRoundsApart(workload: Workload): Promise<RowResult[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", path.join(__dirname, "ceiling-child.ts")], {
      cwd: process.cwd(),
      env: { ...process.env, BENCH_CEILING_WORKLOAD: JSON.stringify(workload) },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    const limit = setTimeout(() => child.kill("SIGKILL"), CHILD_LIMIT_MS);
    child.on("error", (error) => {
      clearTimeout(limit);
      reject(error);
    });
    child.on("close", (code, signal) => {
      clearTimeout(limit);
      const line = out.split("\n").find((l) => l.startsWith(CEILING_RESULTS_MARK));
      if (code !== 0 || !line) return reject(new Error(`the ceiling rounds' process ended with ${signal ?? `code ${code}`} and no results`));
      resolve(JSON.parse(line.slice(CEILING_RESULTS_MARK.length)) as RowResult[]);
    });
  });
}
