import type { PoolClient } from "pg";
import { getPool } from "../db";
import { getRedis } from "../redis";
import { saleCounterKeys } from "../sale/keys";

/**
 * The durable record of every sale: the order row. Its insert is idempotent on the reservation
 * the stock write recorded in Redis, so the purchase and the reconciler may both try it and one
 * order results; a row the reconciler wrote as 'returned' (it gave the unit back) is a tombstone
 * that a late insert of the same reservation finds instead of selling the unit again.
 */
export interface NewOrder {
  readonly reservation: string;
  readonly sku: string;
  readonly saleId: number;
  readonly runId: number | null;
  readonly strategy: string;
  readonly instance: string;
  readonly buyer: string;
  readonly unit: number;
  readonly status: "sold" | "returned";
  readonly reconciled: boolean;
}

export interface RecordedOrder {
  readonly id: number;
  readonly status: "sold" | "returned";
  readonly createdAt: Date;
  /** False when the reservation was already recorded and this call found its row. */
  readonly inserted: boolean;
}

/**
 * One prepared statement straight on the pg pool: on Prisma's JS engine every `create` is compiled
 * anew (about 1 ms of CPU), and this is the one query every purchase runs. On a reservation already
 * recorded it returns that row (the no-op update makes RETURNING answer for it; `xmax = 0` only on
 * a fresh insert). `created_at` is
 * stored in UTC, as Prisma stores it.
 */
const UPSERT_ORDER = {
  name: "locklab-upsert-order",
  text: `INSERT INTO orders (reservation, sku, sale_id, run_id, strategy, instance, buyer, stock_seen, status, reconciled, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, ($11::timestamptz AT TIME ZONE 'UTC'))
         ON CONFLICT (reservation) DO UPDATE SET reservation = EXCLUDED.reservation
         RETURNING id, status, (created_at AT TIME ZONE 'UTC') AS created_at, (xmax = 0) AS inserted`,
};

export async function recordOrder(order: NewOrder, client: Pick<PoolClient, "query"> = getPool()): Promise<RecordedOrder> {
  const { rows } = await client.query<{ id: number; status: "sold" | "returned"; created_at: Date; inserted: boolean }>({
    ...UPSERT_ORDER,
    values: [
      order.reservation, order.sku, order.saleId, order.runId, order.strategy, order.instance, order.buyer, order.unit,
      order.status, order.reconciled, new Date().toISOString(),
    ],
  });
  const row = rows[0];
  if (!row) throw new Error("the order upsert returned no row");
  return { id: Number(row.id), status: row.status, createdAt: new Date(row.created_at), inserted: row.inserted };
}

/** The reservation is settled by its order: drop it from the pending hash (the reconciler would too). */
export function forgetReservation(saleId: number, reservation: string): void {
  void getRedis().hdel(saleCounterKeys(saleId).pending, reservation).catch(() => {});
}

/**
 * A breaker in front of the order insert: once an insert failed because Postgres did not answer,
 * buyers are turned away with 503 *before* a unit is taken, until a probe answers again. Without
 * it every buyer would take a unit the store cannot record while Postgres is down, and the sale
 * would look sold out. Per process; the probe is one `SELECT 1` shared by every waiting buyer.
 */
const PROBE_EVERY_MS = 250;

interface Breaker {
  downSince: number;
  nextProbeAt: number;
  probing?: Promise<boolean>;
  readonly watchedPools: WeakSet<object>;
}

const breaker: Breaker = { downSince: 0, nextProbeAt: 0, watchedPools: new WeakSet() };

export function noteOrderStoreDown(): void {
  if (!breaker.downSince) breaker.downSince = Date.now();
  breaker.nextProbeAt = Date.now() + PROBE_EVERY_MS;
}

/** Resolves true when the order store is believed up (the fast path: no query at all). */
export async function orderStoreUp(): Promise<boolean> {
  const pool = getPool();
  if (!breaker.watchedPools.has(pool)) {
    // An idle pooled connection that Postgres ends (a stop, a restart) trips the breaker at once.
    pool.on("error", noteOrderStoreDown);
    breaker.watchedPools.add(pool);
  }
  if (!breaker.downSince) return true;
  if (Date.now() < breaker.nextProbeAt) return false;
  breaker.probing ??= getPool()
    .query("SELECT 1")
    .then(() => {
      breaker.downSince = 0;
      return true;
    })
    .catch(() => {
      breaker.nextProbeAt = Date.now() + PROBE_EVERY_MS;
      return false;
    })
    .finally(() => {
      breaker.probing = undefined;
    });
  return breaker.probing;
}
