import { performance } from "node:perf_hooks";
import { LockBusyError } from "../lib/locks/types";
import { takeUnit, type UnitLock } from "../lib/purchase/purchase";
import { getRedis } from "../lib/redis";
import { SKU, saleCounterKeys } from "../lib/sale/keys";
import { getStock, resetSale } from "../lib/sale/sale";
import { countRedisCommands } from "./redis-stats";
import { latencyFigures, type RowResult } from "./stats";
import type { Workload } from "./workload";

/**
 * The lock library alone: `workload.buyers` buyers in this process call the lock and the Redis
 * critical section (takeUnit, exactly what POST /api/buy runs before its order insert), each
 * once, a new one starting whenever one finishes, for `windowMs`.
 */
export async function runInProcess(label: string, lock: UnitLock, workload: Workload): Promise<RowResult> {
  const sale = await resetSale({ initialStock: workload.initialStock });
  const options = { ttlMs: workload.ttlMs, waitTimeoutMs: workload.waitTimeoutMs, epoch: sale.epoch };
  const starvedAfterMs = workload.waitTimeoutMs + workload.starvationSlackMs;
  const latencies: number[] = [];
  const counts = { attempts: 0, bought: 0, boughtInWindow: 0, busy: 0, soldOut: 0, errors: 0, starved: 0 };
  const errorsSeen = new Map<string, number>();

  const commandsBefore = await countRedisCommands();
  const cpuBefore = process.cpuUsage();
  const startedAt = performance.now();
  const windowEnd = startedAt + workload.windowMs;

  const buyer = async () => {
    const t0 = performance.now();
    counts.attempts++;
    try {
      const taken = await takeUnit(lock, SKU, options, sale.id, workload.workMs);
      if (taken) {
        counts.bought++;
        if (performance.now() <= windowEnd) counts.boughtInWindow++;
      } else counts.soldOut++;
    } catch (error) {
      if (error instanceof LockBusyError) counts.busy++;
      else {
        counts.errors++;
        const name = (error as Error).name ?? "Error";
        errorsSeen.set(name, (errorsSeen.get(name) ?? 0) + 1);
      }
    }
    const latency = performance.now() - t0;
    latencies.push(latency);
    if (latency > starvedAfterMs) counts.starved++;
  };
  const lane = async () => {
    while (performance.now() < windowEnd) await buyer();
  };
  const lanes = Array.from({ length: workload.buyers }, lane);

  // Buyers still out when the window closes get their wait timeout plus slack to answer; any that
  // have not by then are starved, and the row ends without them.
  let drainTimer: NodeJS.Timeout | undefined;
  const drained = await Promise.race([
    Promise.all(lanes).then(() => true),
    new Promise<false>((resolve) => {
      drainTimer = setTimeout(() => resolve(false), workload.windowMs + starvedAfterMs);
    }),
  ]);
  clearTimeout(drainTimer);
  const unanswered = drained ? 0 : counts.attempts - latencies.length;
  const cpu = process.cpuUsage(cpuBefore);

  const commandsAfter = await countRedisCommands();
  const stockLeft = await getStock();
  const peak = Number((await getRedis().get(saleCounterKeys(sale.id).peak)) ?? 0);
  if (errorsSeen.size) console.error(`  ${label}: errors ${JSON.stringify(Object.fromEntries(errorsSeen))}`);
  return {
    level: "in-process",
    label,
    buyers: workload.buyers,
    windowMs: workload.windowMs,
    attempts: counts.attempts,
    bought: counts.bought,
    busy: counts.busy,
    soldOut: counts.soldOut,
    errors: counts.errors,
    starved: counts.starved + unanswered,
    purchasesPerSecond: counts.boughtInWindow / (workload.windowMs / 1000),
    ...latencyFigures(latencies),
    redisCommandsPerPurchase: counts.bought ? (commandsAfter - commandsBefore) / counts.bought : 0,
    peakHolders: peak,
    lostUpdates: Math.max(0, counts.bought - (workload.initialStock - stockLeft)),
    ...(counts.bought && { cpuMicrosPerPurchase: (cpu.user + cpu.system) / counts.bought }),
  };
}
