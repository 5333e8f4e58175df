/**
 * Every wait of the store bounded, on a Postgres and a Redis (node 1) of this test's own, no stack;
 * the store's own code runs in this process against them (DATABASE_URL, REDIS_NODES):
 *   - Postgres frozen (SIGSTOP to the postmaster and every backend: its connections stay open and
 *     nothing comes back, as a partition that drops packets looks from the app): a buyer is answered
 *     503 `unavailable` within the main pool's query timeout, not never; their unit stays reserved,
 *     not lost; the order store's breaker turns the next buyers away at once, before they take a unit;
 *     and once Postgres answers again the store sells and the reconciler settles the reservation.
 *   - A statement Postgres holds (the orders table locked by another session) past the statement
 *     timeout is cancelled by Postgres, and that too counts as the order store failing.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb } from "@/lib/db";
import { QUERY_TIMEOUT_MS, STATEMENT_TIMEOUT_MS } from "@/lib/db-config";
import { isOrderStoreFailure, recordOrder } from "@/lib/purchase/order-store";
import { purchase } from "@/lib/purchase/purchase";
import { reconcile } from "@/lib/purchase/reconciler";
import { closeRedis, getRedis } from "@/lib/redis";
import { SKU, saleCounterKeys } from "@/lib/sale/keys";
import { getSaleStats, getStock, resetSale } from "@/lib/sale/sale";
import { waitFor } from "../support/wait";
import { machineUnfit, startPostgres, startRedis, stopServers, type TestPostgres } from "./support/servers";

const unfit = machineUnfit(["postgres", "redis-cluster"]);
const STOCK = 5;
let buyers = 0;
const buyer = () => `waits-buyer-${++buyers}`;

/** A purchase's outcome as the buyer sees it, and how long it took. */
async function timedPurchase(): Promise<{ ms: number; status: number | "bought"; code?: string }> {
  const startedAt = Date.now();
  try {
    await purchase({ buyer: buyer() });
    return { ms: Date.now() - startedAt, status: "bought" };
  } catch (error) {
    const { status, code } = error as { status?: number; code?: string };
    return { ms: Date.now() - startedAt, status: status ?? 500, code };
  }
}

describe.skipIf(unfit !== null)(`the store's waits on a Postgres and a Redis of the test's own${unfit ? ` (skipped: ${unfit})` : ""}`, () => {
  let postgres: TestPostgres;
  let saleId = 0;

  beforeAll(async () => {
    postgres = await startPostgres();
    const redis = await startRedis();
    // Read once, at the store's first getEnv(): set before any of its code runs.
    process.env.DATABASE_URL = await postgres.migratedDatabase("locklab");
    process.env.REDIS_NODES = redis.address;
    process.env.APP_INSTANCE = "servers-waits";
    process.env.LOCK_STRATEGY = "atomic";
    process.env.WORK_MS = "0";
    const seed = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await seed.connect();
    await seed.query("INSERT INTO products (sku, name, price_cents, initial_stock, image_url) VALUES ($1, 'Keyboard 001', 12900, $2, '/goods-001.svg')", [SKU, STOCK]);
    await seed.end();
    saleId = (await resetSale({ initialStock: STOCK })).id;
  });

  afterAll(async () => {
    // A test that failed while Postgres was frozen must not leave it so (closeDb would wait on it).
    postgres?.thaw();
    await closeDb();
    await closeRedis();
    await stopServers();
  });

  it("Postgres frozen: a buyer is answered 503 within the query timeout with their unit reserved, the breaker turns the next away at once, and the store sells again once it answers", async () => {
    expect((await timedPurchase()).status).toBe("bought");
    const pids = postgres.freeze();
    try {
      // The fault is in force: the postmaster and every backend stopped (a signal is delivered a moment later).
      await waitFor(() => postgres.frozen(pids), { what: `postgres processes ${pids.join(", ")} to be stopped`, timeoutMs: 2000 });

      const first = await timedPurchase();
      expect(first.status).toBe(503);
      expect(first.code).toBe("unavailable");
      // Before the query timeout this buyer would have waited forever on a connection nothing answers.
      expect(first.ms).toBeLessThan(QUERY_TIMEOUT_MS + 2000);
      // The unit it took is reserved for the reconciler, not lost: on the shelf or reserved, all of it.
      const pending = await getRedis().hlen(saleCounterKeys(saleId).pending);
      expect(pending).toBe(1);
      expect((await getStock()) + pending).toBe(STOCK - 1);

      // The breaker: turned away at once, before taking a unit.
      const stockBefore = await getStock();
      const next = await timedPurchase();
      expect(next.status).toBe(503);
      expect(next.code).toBe("unavailable");
      expect(next.ms).toBeLessThan(2000);
      expect(await getStock()).toBe(stockBefore);
    } finally {
      postgres.thaw();
    }

    // Answering again: the breaker's probe lets buyers through, and the reconciler settles the reservation.
    await waitFor(timedPurchase, { what: "a purchase to go through once Postgres answers again", timeoutMs: 20_000, intervalMs: 300, until: (p) => p.status === "bought" });
    const summary = await reconcile({ olderThanMs: 0 });
    expect(summary.ran).toBe(true);
    const stats = await getSaleStats(saleId);
    expect([stats.lostUnits, stats.phantomUnits, stats.doubleSold, stats.pendingUnits]).toEqual([0, 0, 0, 0]);
    expect(stats.orders + stats.remaining).toBe(STOCK);
  });

  it("a statement Postgres holds past the statement timeout is cancelled by Postgres, and counts as the order store failing", async () => {
    const holder = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await holder.connect();
    await holder.query("BEGIN");
    await holder.query("LOCK TABLE orders IN SHARE ROW EXCLUSIVE MODE");
    const startedAt = Date.now();
    try {
      const error = await recordOrder({
        reservation: `waits-${Date.now()}`, sku: SKU, saleId, runId: null, strategy: "atomic", instance: "servers-waits",
        buyer: buyer(), unit: 1, status: "sold", reconciled: false,
      }).then(() => undefined, (failure: unknown) => failure);
      const waited = Date.now() - startedAt;
      // Postgres itself answered, at its statement timeout: not the client's later bound.
      expect(error).toMatchObject({ code: "57014" });
      expect(waited).toBeGreaterThanOrEqual(STATEMENT_TIMEOUT_MS - 100);
      expect(waited).toBeLessThan(QUERY_TIMEOUT_MS);
      expect(isOrderStoreFailure(error)).toBe(true);
    } finally {
      await holder.query("ROLLBACK");
      await holder.end();
    }
  });
});
