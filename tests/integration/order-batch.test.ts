/**
 * The order insert in batches (lib/purchase/order-store.ts), on the real Postgres: orders that
 * arrive while others are out go together in one statement and one commit, and each caller still
 * gets its own row — the same row for the same reservation, the reconciler's tombstone where it
 * got there first — and one bad row does not fail the orders it was sent with.
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { closeDb } from "@/lib/db";
import { BATCHES_OUT, recordOrder, type NewOrder, type RecordedOrder } from "@/lib/purchase/order-store";
import { SKU } from "@/lib/sale/keys";
import { stallOrders } from "../support/order-stall";
import { sleep, waitFor } from "../support/wait";

const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
let saleId = 0;

beforeAll(async () => {
  await admin.connect();
  // A sale of its own, started long ago so the store never takes it for the current one.
  const { rows } = await admin.query<{ id: number }>(
    "INSERT INTO sales (sku, initial_stock, strategy, started_at) VALUES ($1, 1000, 'atomic', '2000-01-01') RETURNING id", [SKU]);
  saleId = rows[0]!.id;
});

afterAll(async () => {
  await admin.query("DELETE FROM sales WHERE id = $1", [saleId]).catch(() => {});
  await admin.end();
  await closeDb();
});

const order = (unit: number, overrides: Partial<NewOrder> = {}): NewOrder => ({
  reservation: randomUUID(), sku: SKU, saleId, runId: null, strategy: "atomic", instance: "order-batch-test",
  buyer: `batch-buyer-${unit}`, unit, status: "sold", reconciled: false, ...overrides,
});

describe("orders recorded in batches", () => {
  it("orders that arrive together share commits, and each caller gets its own row", async () => {
    const stall = await stallOrders();
    onTestFinished(() => stall.release());
    const orders = Array.from({ length: 60 }, (_, i) => order(i + 1));
    const calledAt = Date.now();
    const answers = Promise.all(orders.map((o) => recordOrder(o)));
    // The first statements go out alone and wait; the rest gather behind them.
    await waitFor(() => stall.insertsWaiting(), { until: (n) => n === BATCHES_OUT, timeoutMs: 5000, what: `the first ${BATCHES_OUT} order inserts waiting on the stalled table` });
    await stall.release();
    const recorded = await answers;

    expect(new Set(recorded.map((r) => r.id)).size).toBe(60);
    expect(recorded.every((r) => r.status === "sold" && r.inserted)).toBe(true);
    const { rows } = await admin.query<{ reservation: string; id: number; buyer: string; stock_seen: number; created_at: Date; tx: string }>(
      "SELECT reservation, id, buyer, stock_seen, (created_at AT TIME ZONE 'UTC') AS created_at, xmin::text AS tx FROM orders WHERE sale_id = $1 AND reservation = ANY($2)",
      [saleId, orders.map((o) => o.reservation)]);
    expect(rows).toHaveLength(60);
    const byReservation = new Map(rows.map((row) => [row.reservation, row]));
    orders.forEach((o, i) => {
      const row = byReservation.get(o.reservation)!;
      // The id answered is the row recorded for this caller's reservation, with its buyer and unit.
      expect([row.id, row.buyer, row.stock_seen]).toEqual([recorded[i]!.id, o.buyer, o.unit]);
      // Stamped when the purchase asked, not when its batch went out.
      expect(Math.abs(new Date(row.created_at).getTime() - calledAt)).toBeLessThan(2000);
    });
    // A few statements went out at once, the rest waited and went together: far fewer commits than orders.
    const commits = new Set(rows.map((row) => row.tx)).size;
    expect(commits).toBeLessThanOrEqual(10);
  });

  it("the same reservation twice in one batch is one row; a reservation the reconciler returned stays returned", async () => {
    const tombstoned = order(100, { status: "returned", reconciled: true });
    await recordOrder(tombstoned, admin);
    const stall = await stallOrders();
    onTestFinished(() => stall.release());
    const twice = order(101);
    const others = Array.from({ length: 10 }, (_, i) => order(110 + i));
    const answers = Promise.all([
      ...others.slice(0, 5).map((o) => recordOrder(o)),
      recordOrder(twice), recordOrder({ ...tombstoned, status: "sold", reconciled: false }), recordOrder(twice),
      ...others.slice(5).map((o) => recordOrder(o)),
    ]);
    await waitFor(stall.insertsWaiting, { until: (n) => n > 0, timeoutMs: 5000, what: "order inserts waiting on the stalled table" });
    await stall.release();
    const recorded: RecordedOrder[] = await answers;
    const [first, late, second] = [recorded[5]!, recorded[6]!, recorded[7]!];

    expect(second.id).toBe(first.id);
    expect([first.inserted, second.inserted]).toEqual([true, false]);
    expect([late.status, late.inserted]).toEqual(["returned", false]);
    const { rows } = await admin.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM orders WHERE reservation = ANY($1)", [[twice.reservation, tombstoned.reservation]]);
    expect(rows[0]!.n).toBe(2);
    expect(recorded.filter((r) => r.inserted)).toHaveLength(11);
  });

  it("a row Postgres refuses fails alone: the orders sent with it are recorded", async () => {
    const stall = await stallOrders();
    onTestFinished(() => stall.release());
    const good = Array.from({ length: 12 }, (_, i) => order(200 + i));
    const bad = order(299, { saleId: 2_000_000_000 });
    const answers = Promise.allSettled([...good.slice(0, 6), bad, ...good.slice(6)].map((o) => recordOrder(o)));
    await waitFor(stall.insertsWaiting, { until: (n) => n > 0, timeoutMs: 5000, what: "order inserts waiting on the stalled table" });
    await stall.release();
    const settled = await answers;

    const refused = settled[6]!;
    expect(refused.status).toBe("rejected");
    expect((refused as PromiseRejectedResult).reason).toMatchObject({ code: "23503" });
    expect(settled.filter((s) => s.status === "fulfilled")).toHaveLength(12);
    const { rows } = await admin.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM orders WHERE reservation = ANY($1)", [good.map((o) => o.reservation)]);
    expect(rows[0]!.n).toBe(12);
  });

  it("a batch whose statement is cancelled answers every order in it at once, instead of sending each again into the stall", async () => {
    const stall = await stallOrders();
    onTestFinished(() => stall.release());
    const orders = Array.from({ length: 40 }, (_, i) => order(300 + i));
    const settled = Promise.allSettled(orders.map((o) => recordOrder(o)));
    // The first statements go out alone and wait; the rest gather behind them.
    await waitFor(() => stall.insertsWaiting(), { until: (n) => n === BATCHES_OUT, timeoutMs: 5000, what: `the first ${BATCHES_OUT} order inserts, one order each, waiting on the stalled table` });
    expect(await stall.cancelWaitingInserts()).toBe(BATCHES_OUT);
    // Their slots free, the gathered orders go out together in one statement, into the same stall.
    await waitFor(() => stall.insertsWaiting("batches"), { until: (n) => n === 1, timeoutMs: 5000, what: "the gathered batch waiting on the stalled table" });
    expect(await stall.cancelWaitingInserts()).toBeGreaterThan(0);
    // The table is still held: each order is answered now, not one stall after another.
    const answers = await Promise.race([settled, sleep(3000).then(() => "still waiting" as const)]);
    expect(answers).not.toBe("still waiting");
    const results = answers as PromiseSettledResult<RecordedOrder>[];
    expect(results.every((r) => r.status === "rejected" && (r.reason as { code?: string }).code === "57014")).toBe(true);
    expect(await stall.insertsWaiting()).toBe(0);
    await stall.release();
    const { rows } = await admin.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM orders WHERE reservation = ANY($1)", [orders.map((o) => o.reservation)]);
    expect(rows[0]!.n).toBe(0);
  });
});
