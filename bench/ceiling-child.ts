/**
 * The ceiling rounds (bench/ceiling-rounds.ts) in a process of their own: started by the bench with
 * the workload in BENCH_CEILING_WORKLOAD and the stack's env, prints its results as one JSON line.
 */
import { closeDb } from "../lib/db";
import { getLockServices } from "../lib/lock-services";
import { closeRedis } from "../lib/redis";
import { CEILING_RESULTS_MARK, ceilingRounds } from "./ceiling-rounds";
import type { Workload } from "./workload";

async function main(): Promise<void> {
  const workload = JSON.parse(process.env.BENCH_CEILING_WORKLOAD ?? "null") as Workload | null;
  if (!workload) throw new Error("BENCH_CEILING_WORKLOAD is not set: this process is started by the benchmark");
  const results = await ceilingRounds(workload);
  process.stdout.write(`${CEILING_RESULTS_MARK}${JSON.stringify(results)}\n`);
}

main()
  .then(async () => {
    await Promise.allSettled([closeRedis(), closeDb(), getLockServices().close()]);
    process.exit(0);
  })
  .catch((error) => {
    console.error(error instanceof Error ? error.stack : error);
    process.exit(1);
  });
