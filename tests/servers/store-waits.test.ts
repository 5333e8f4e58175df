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
 *   - The reconciler's give-back meets a Redis that takes no writes (CLIENT PAUSE WRITE: the script
 *     waits in Redis, its reply does not come): the reconciler stops asking within its bounds and
 *     commits the order row 'settling' while Redis is still paused — no transaction left open — and a
 *     late order insert of that reservation finds it, not a sale. When the paused script then runs,
 *     the next pass settles the row from what it did: put back ('returned') when it went, recorded as
 *     the buyer's order when it did not (the stock had moved). Every unit counted, none twice.
 */
import { randomUUID } from "node:crypto";
import Redis from "ioredis";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { closeDb } from "@/lib/db";
import { QUERY_TIMEOUT_MS, STATEMENT_TIMEOUT_MS } from "@/lib/db-config";
import { takeUnitAtomically } from "@/lib/purchase/critical-section";
import { isOrderStoreFailure, recordOrder } from "@/lib/purchase/order-store";
import { purchase } from "@/lib/purchase/purchase";
import { reconcile } from "@/lib/purchase/reconciler";
import { closeRedis, getRedis } from "@/lib/redis";
import { getActiveConfig } from "@/lib/sale/config";
import { STOCK_KEY, SKU, saleCounterKeys } from "@/lib/sale/keys";
import { getSaleStats, getStock, resetSale } from "@/lib/sale/sale";
import { stallOrders } from "../support/order-stall";
import { waitFor } from "../support/wait";
import { machineUnfit, startPostgres, startRedis, stopServers, type TestPostgres, type TestRedis } from "./support/servers";

const unfit = machineUnfit(["postgres", "redis-cluster"]);
const STOCK = 20;
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
  let redis: TestRedis;
  let saleId = 0;

  beforeAll(async () => {
    postgres = await startPostgres();
    redis = await startRedis();
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

  describe("the reconciler, when its give-back's answer does not come", () => {
    /** Long enough for the reconciler to give up asking (its give-back's 2 s and its own 2 s) with room to spare. */
    const PAUSE_MS = 8000;
    let side: Redis;
    let admin: pg.Client;

    beforeAll(async () => {
      // Connections of the test's own: the store's node-1 connection waits behind its paused script.
      side = new Redis(redis.port, "127.0.0.1", { lazyConnect: true, maxRetriesPerRequest: 1 });
      await side.connect();
      admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await admin.connect();
    });

    afterAll(async () => {
      await side?.call("CLIENT", "UNPAUSE").catch(() => {});
      side?.disconnect();
      await admin?.end();
    });

    /** A unit taken by the store's own stock write for a buyer whose instance then died: reserved, its order never sent. */
    async function takenByACrashedInstance(): Promise<{ reservation: string; unit: number }> {
      const reservation = randomUUID();
      const { epoch } = await getActiveConfig();
      const taken = await takeUnitAtomically(getRedis(), saleId, epoch, { id: reservation, buyer: buyer(), instance: "app-gone", strategy: "atomic", runId: null });
      if (typeof taken === "string") throw new Error(`no unit taken: ${taken}`);
      return { reservation, unit: taken.stockSeen };
    }

    const statusOf = async (reservation: string) =>
      (await admin.query<{ status: string }>("SELECT status FROM orders WHERE reservation = $1", [reservation])).rows[0]?.status;
    const reserved = async (reservation: string) => (await side.hexists(saleCounterKeys(saleId).pending, reservation)) === 1;
    /** Sessions of the store's database inside a transaction and idle in it: a transaction held open. */
    const heldOpen = async () => (await admin.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%' AND pid <> pg_backend_pid()")).rows[0]!.n;

    /**
     * One reconcile pass whose give-back meets a Redis paused for writes: the pass's order row is
     * held at the table until Redis is paused, so the give-back is the first write it sends after.
     * Resolves once the pass has committed its row, with the pass itself still running.
     */
    async function passIntoPausedRedis(reservation: string): Promise<{ pass: Promise<unknown>; pauseEndsAt: number }> {
      const stall = await stallOrders();
      onTestFinished(() => stall.release());
      const pass = reconcile({ olderThanMs: 0 }).catch((error: unknown) => error);
      await waitFor(stall.insertsWaiting, { what: "the reconciler's order row waiting on the held table", until: (n) => n > 0, timeoutMs: 10_000 });
      expect(await side.call("CLIENT", "PAUSE", String(PAUSE_MS), "WRITE")).toBe("OK");
      const pauseEndsAt = Date.now() + PAUSE_MS;
      await stall.release();
      // Committed while Redis still takes no writes: the pass gave up asking, it did not wait for Redis.
      await waitFor(() => statusOf(reservation), { what: `the reservation's row committed 'settling' before the pause ends`, until: (status) => status === "settling", timeoutMs: PAUSE_MS - 1500, intervalMs: 100 });
      expect(Date.now()).toBeLessThan(pauseEndsAt);
      return { pass, pauseEndsAt };
    }

    it("a give-back that did go: committed 'settling' while Redis is paused, a late order finds it, and the next pass records it put back", async () => {
      const { reservation, unit } = await takenByACrashedInstance();
      const stockBefore = Number(await side.get(STOCK_KEY));
      const { pass } = await passIntoPausedRedis(reservation);

      // Nothing held while Redis does not answer, and nothing guessed: not sold, still reserved.
      expect(await heldOpen()).toBe(0);
      expect(await reserved(reservation)).toBe(true);
      // The buyer's late order insert finds the row in doubt, not a sale (its purchase answers 503 and keeps the reservation).
      const late = await recordOrder({
        reservation, sku: SKU, saleId, runId: null, strategy: "atomic", instance: "app-gone", buyer: "late", unit, status: "sold", reconciled: false,
      });
      expect([late.status, late.inserted]).toEqual(["settling", false]);

      // The pause ends and the paused give-back runs: the unit is back on the shelf, its reservation gone.
      await waitFor(() => reserved(reservation), { what: "the paused give-back to run once Redis takes writes", until: (there) => !there, timeoutMs: PAUSE_MS + 5000, intervalMs: 100 });
      expect(Number(await side.get(STOCK_KEY))).toBe(stockBefore + 1);
      await pass;

      // The next pass learns it from the reservation: the row becomes the tombstone it is.
      const next = await waitFor(() => reconcile({ olderThanMs: 0 }), { what: "a reconcile pass to run (the paused pass's lease let go)", until: (s) => s.ran, timeoutMs: 25_000, intervalMs: 500 });
      expect(next.givenBack).toBe(1);
      expect(await statusOf(reservation)).toBe("returned");
      const stats = await getSaleStats(saleId);
      expect([stats.lostUnits, stats.phantomUnits, stats.doubleSold, stats.pendingUnits]).toEqual([0, 0, 0, 0]);
      expect(stats.orders + stats.remaining).toBe(STOCK);
    });

    it("a give-back that did not go (the stock had moved): committed 'settling', and the next pass records the buyer's order", async () => {
      const { reservation } = await takenByACrashedInstance();
      // Another buyer's unit sells above it on the shelf: this one can no longer go back as itself.
      expect((await timedPurchase()).status).toBe("bought");
      const ordersBefore = (await getSaleStats(saleId)).orders;
      const { pass } = await passIntoPausedRedis(reservation);
      expect(await heldOpen()).toBe(0);

      // The paused give-back runs and finds the stock moved: it changes nothing, the reservation stays.
      await side.call("CLIENT", "UNPAUSE");
      await pass;
      expect(await reserved(reservation)).toBe(true);
      expect(await statusOf(reservation)).toBe("settling");

      const next = await waitFor(() => reconcile({ olderThanMs: 0 }), { what: "a reconcile pass to run", until: (s) => s.ran, timeoutMs: 25_000, intervalMs: 500 });
      expect(next.ordersRecorded).toBe(1);
      expect(await statusOf(reservation)).toBe("sold");
      expect(await reserved(reservation)).toBe(false);
      const stats = await getSaleStats(saleId);
      expect(stats.orders).toBe(ordersBefore + 1);
      expect([stats.lostUnits, stats.phantomUnits, stats.doubleSold, stats.pendingUnits]).toEqual([0, 0, 0, 0]);
      expect(stats.orders + stats.remaining).toBe(STOCK);
    });
  });
});
