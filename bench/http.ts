import { performance } from "node:perf_hooks";
import autocannon from "autocannon";
import { getRedis } from "../lib/redis";
import { updateConfig } from "../lib/sale/config";
import { saleCounterKeys } from "../lib/sale/keys";
import { getDb } from "../lib/db";
import { getStock, resetSale } from "../lib/sale/sale";
import type { StrategyName } from "../lib/locks/strategies";
import { countRedisCommands } from "./redis-stats";
import { latencyFigures, type RowResult } from "./stats";
import type { Workload } from "./workload";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

export function assertLoopback(url: string): void {
  if (!LOOPBACK.has(new URL(url).hostname)) throw new Error(`the benchmark sends load to 127.0.0.1 only, not ${url}`);
}

async function settled(read: () => Promise<number>, maxMs: number): Promise<void> {
  const until = performance.now() + maxMs;
  let last = await read();
  while (performance.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const now = await read();
    if (now === last) return;
    last = now;
  }
}

/**
 * The whole purchase over HTTP: `workload.buyers` keep-alive connections to nginx (both app
 * instances behind it), each with one `POST /api/buy` of a new buyer in flight, for `windowMs`.
 * Every answer is classified by status: 201 bought, 409 sold out, 423 busy, anything else an error;
 * a request unanswered at the wait timeout plus slack is cut off and counted as starved.
 */
export async function runHttp(publicUrl: string, strategy: StrategyName, workload: Workload, label: string = strategy): Promise<RowResult> {
  assertLoopback(publicUrl);
  await updateConfig({ strategy, lockTtlMs: workload.ttlMs, waitTimeoutMs: workload.waitTimeoutMs, workMs: workload.workMs });
  const sale = await resetSale({ initialStock: workload.initialStock });
  const starvedAfterMs = workload.waitTimeoutMs + workload.starvationSlackMs;
  const latencies: number[] = [];
  const counts = { bought: 0, busy: 0, soldOut: 0, errors: 0, starved: 0 };
  let buyerSeq = 0;
  const prefix = `bench-${process.pid}-${strategy}`;

  const commandsBefore = await countRedisCommands();
  const startedAt = performance.now();
  await new Promise<void>((resolve, reject) => {
    const instance = autocannon(
      {
        url: new URL("/api/buy", publicUrl).href,
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        connections: workload.buyers,
        duration: workload.windowMs / 1000,
        timeout: starvedAfterMs / 1000,
        sampleInt: 100,
        requests: [{ setupRequest: (request) => ({ ...request, body: JSON.stringify({ buyer: `${prefix}-${buyerSeq++}` }) }) }],
      },
      (error) => (error ? reject(error) : resolve()),
    );
    instance.on("response", (_client: unknown, status: number, _bytes: number, latencyMs: number) => {
      latencies.push(latencyMs);
      if (latencyMs > starvedAfterMs) counts.starved++;
      if (status === 201) counts.bought++;
      else if (status === 423) counts.busy++;
      else if (status === 409) counts.soldOut++;
      else counts.errors++;
    });
    instance.on("reqError", (error: Error) => {
      if (error.message === "request timed out") counts.starved++;
      else counts.errors++;
    });
    // autocannon stops itself at `duration`; this only cuts short a load client that hangs.
    setTimeout(() => instance.stop(), workload.windowMs + starvedAfterMs + 5000).unref();
  });
  const elapsedMs = performance.now() - startedAt;
  // Requests autocannon stopped waiting for are still being served: let the stock settle first,
  // so the lost-updates figure compares orders and stock of the same moment.
  await settled(() => getStock(), starvedAfterMs);
  const commandsAfter = await countRedisCommands();
  const [orders, stockLeft] = await Promise.all([getDb().order.count({ where: { saleId: sale.id, status: "sold" } }), getStock()]);
  const peak = Number((await getRedis().get(saleCounterKeys(sale.id).peak)) ?? 0);
  return {
    level: "http",
    label,
    buyers: workload.buyers,
    windowMs: workload.windowMs,
    attempts: latencies.length + counts.starved,
    bought: counts.bought,
    busy: counts.busy,
    soldOut: counts.soldOut,
    errors: counts.errors,
    starved: counts.starved,
    purchasesPerSecond: counts.bought / (Math.max(elapsedMs, workload.windowMs) / 1000),
    ...latencyFigures(latencies),
    redisCommandsPerPurchase: counts.bought ? (commandsAfter - commandsBefore) / counts.bought : 0,
    peakHolders: peak,
    lostUpdates: Math.max(0, orders - (workload.initialStock - stockLeft)),
  };
}
