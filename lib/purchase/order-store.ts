import type { PoolClient } from "pg";
import { getPool } from "../db";
import { STATEMENT_TIMEOUT_MS } from "../db-config";
import { getRedis } from "../redis";
import { saleCounterKeys } from "../sale/keys";
import { isConnectionError } from "../store-call";

/**
 * The durable record of every sale: the order row. Its insert is idempotent on the reservation
 * the stock write recorded in Redis, so the purchase and the reconciler may both try it and one
 * order results; a row the reconciler wrote as 'returned' (it gave the unit back) is a tombstone
 * that a late insert of the same reservation finds instead of selling the unit again. A row
 * 'settling' is one the reconciler left while it could not learn whether its give-back of the unit
 * happened (lib/purchase/reconciler.ts): neither sold nor returned yet, and a late insert finds it
 * too — its unit stays reserved, and the reconciler settles it.
 */
export type OrderStatus = "sold" | "returned" | "settling";

export interface NewOrder {
  readonly reservation: string;
  readonly sku: string;
  readonly saleId: number;
  readonly runId: number | null;
  readonly strategy: string;
  readonly instance: string;
  readonly buyer: string;
  readonly unit: number;
  readonly status: OrderStatus;
  readonly reconciled: boolean;
}

export interface RecordedOrder {
  readonly id: number;
  readonly status: OrderStatus;
  readonly createdAt: Date;
  /** False when the reservation was already recorded and this call found its row. */
  readonly inserted: boolean;
}

/**
 * Prepared statements straight on the pg pool: on Prisma's JS engine every `create` is compiled
 * anew (about 1 ms of CPU), and this is the one query every purchase runs. On a reservation already
 * recorded they return that row (the no-op update makes RETURNING answer for it; `xmax = 0` only on
 * a fresh insert). `created_at` is stored in UTC, as Prisma stores it.
 */
const UPSERT_ORDER = {
  name: "locklab-upsert-order",
  text: `INSERT INTO orders (reservation, sku, sale_id, run_id, strategy, instance, buyer, stock_seen, status, reconciled, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, ($11::timestamptz AT TIME ZONE 'UTC'))
         ON CONFLICT (reservation) DO UPDATE SET reservation = EXCLUDED.reservation
         RETURNING reservation, id, status, (created_at AT TIME ZONE 'UTC') AS created_at, (xmax = 0) AS inserted`,
};

/** The same for many orders in one statement and one commit: one array per column. */
const UPSERT_ORDERS = {
  name: "locklab-upsert-orders",
  text: `INSERT INTO orders (reservation, sku, sale_id, run_id, strategy, instance, buyer, stock_seen, status, reconciled, created_at)
         SELECT r, sku, sale_id, run_id, strategy, instance, buyer, unit, status, reconciled, (at AT TIME ZONE 'UTC')
           FROM unnest($1::text[], $2::text[], $3::int[], $4::int[], $5::text[], $6::text[], $7::text[], $8::int[], $9::text[], $10::bool[], $11::timestamptz[])
             AS t(r, sku, sale_id, run_id, strategy, instance, buyer, unit, status, reconciled, at)
         ON CONFLICT (reservation) DO UPDATE SET reservation = EXCLUDED.reservation
         RETURNING reservation, id, status, (created_at AT TIME ZONE 'UTC') AS created_at, (xmax = 0) AS inserted`,
};

interface OrderRow { reservation: string; id: number; status: OrderStatus; created_at: Date; inserted: boolean }

const recorded = (row: OrderRow): RecordedOrder =>
  ({ id: Number(row.id), status: row.status, createdAt: new Date(row.created_at), inserted: row.inserted });

/**
 * Records an order, idempotently on its reservation. On `client` (the reconciler's transaction) it
 * is one statement there. Otherwise it joins the order batches: a purchase's answer still waits
 * for its own row's commit, but a burst of purchases shares statements and commits instead of
 * queueing for a pool connection each.
 */
export async function recordOrder(order: NewOrder, client?: Pick<PoolClient, "query">): Promise<RecordedOrder> {
  if (client) return recorded(await upsertOne(order, new Date().toISOString(), client));
  return new Promise<RecordedOrder>((resolve, reject) => {
    const waiting: Waiting = { order, at: new Date().toISOString(), resolve, reject };
    waiting.timer = setTimeout(() => giveUp(waiting), QUEUE_BOUND_MS);
    queue.push(waiting);
    sendBatches();
  });
}

async function upsertOne(order: NewOrder, at: string, client: Pick<PoolClient, "query"> = getPool()): Promise<OrderRow> {
  const { rows } = await client.query<OrderRow>({ ...UPSERT_ORDER, values: [...columnsOf(order), at] });
  if (!rows[0]) throw new Error("the order upsert returned no row");
  return rows[0];
}

const columnsOf = (o: NewOrder): unknown[] => [o.reservation, o.sku, o.saleId, o.runId, o.strategy, o.instance, o.buyer, o.unit, o.status, o.reconciled];

/**
 * The order batches (group commit). At most BATCHES_OUT statements are out at once, so a burst
 * holds a few pool connections, not the whole pool: a lone buyer's order goes out at once, and
 * while the batches are out the next orders gather and go together, up to BATCH_ROWS in one
 * statement, when one comes back. Before, a thousand buyers each waited for one of the pool's
 * connections and those that waited past its 3 s connect timeout were answered 503 with a healthy
 * Postgres (docs/benchmarks.md). An order still waiting to go out after QUEUE_BOUND_MS (Postgres
 * stalled) is answered as the pool's timeout was: its unit stays reserved for the reconciler. A
 * statement out is bounded the same (the main pool's statement and query timeouts,
 * lib/db-config.ts), so a Postgres that stops answering — stopped, or cut off with its packets
 * dropped — frees the batches' slots and trips the breaker below instead of holding them forever.
 * The reconciler does not wait for that bound: it settles any reservation older than a few seconds,
 * so an order that waited long may find its unit put back (its tombstone, answered as such). While
 * the reconciler's transaction is open, the batch carrying that order waits with it, for as long as
 * the give-back's lock wait: slower answers for its batch-mates, no figure changed.
 */
export const BATCHES_OUT = 4;
const BATCH_ROWS = 250;
/** As long as a statement may be out: an order that waited this long to go out is as stalled as one out this long. */
const QUEUE_BOUND_MS = STATEMENT_TIMEOUT_MS;

/** An order that waited QUEUE_BOUND_MS to go out, behind batches that did not come back: Postgres stalled. */
export class OrderQueueTimeoutError extends Error {
  override name = "OrderQueueTimeoutError";
}

interface Waiting {
  readonly order: NewOrder;
  readonly at: string;
  readonly resolve: (order: RecordedOrder) => void;
  readonly reject: (error: unknown) => void;
  timer?: ReturnType<typeof setTimeout>;
}

const queue: Waiting[] = [];
let batchesOut = 0;

function giveUp(waiting: Waiting): void {
  const at = queue.indexOf(waiting);
  if (at < 0) return;
  queue.splice(at, 1);
  waiting.reject(new OrderQueueTimeoutError(`the order waited ${QUEUE_BOUND_MS} ms for Postgres behind ${batchesOut} batches of orders that did not come back`));
}

function sendBatches(): void {
  while (queue.length > 0 && batchesOut < BATCHES_OUT) {
    const batch = queue.splice(0, BATCH_ROWS);
    for (const waiting of batch) clearTimeout(waiting.timer);
    batchesOut++;
    void sendBatch(batch).catch((error: unknown) => batch.forEach((waiting) => waiting.reject(error))).finally(() => {
      batchesOut--;
      sendBatches();
    });
  }
}

async function sendBatch(batch: readonly Waiting[]): Promise<void> {
  // One row per reservation: a statement may not upsert the same row twice. Its waiters share the row.
  const byReservation = new Map<string, Waiting[]>();
  for (const waiting of batch) byReservation.set(waiting.order.reservation, [...(byReservation.get(waiting.order.reservation) ?? []), waiting]);
  const firsts = [...byReservation.values()].map((waiters) => waiters[0]!);
  let rows: OrderRow[];
  try {
    if (firsts.length === 1) rows = [await upsertOne(firsts[0]!.order, firsts[0]!.at)];
    else {
      const table = firsts.map((waiting) => [...columnsOf(waiting.order), waiting.at]);
      const columns = table[0]!.map((_, column) => table.map((row) => row[column]));
      rows = (await getPool().query<OrderRow>({ ...UPSERT_ORDERS, values: columns })).rows;
    }
  } catch (error) {
    // One bad row (its sale deleted meanwhile) must not fail the others: each goes again alone, one
    // after another on this batch's turn (not the whole pool at once). An error no single row caused
    // (Postgres not answering, the statement cancelled, no connection slot left) fails them all at
    // once, as one insert each would: sent again one by one, they would wait the same stall in turn.
    if (firsts.length === 1 || !isRowError(error)) {
      for (const waiting of batch) waiting.reject(error);
      return;
    }
    for (const waiters of byReservation.values()) {
      await upsertOne(waiters[0]!.order, waiters[0]!.at).then((row) => answer(waiters, row), (alone: unknown) => waiters.forEach((w) => w.reject(alone)));
    }
    return;
  }
  const found = new Map(rows.map((row) => [row.reservation, row]));
  for (const [reservation, waiters] of byReservation) answer(waiters, found.get(reservation));
}

/** An error one row's values cause: a data exception (class 22) or a broken constraint (class 23). */
function isRowError(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && (code.startsWith("22") || code.startsWith("23"));
}

function answer(waiters: readonly Waiting[], row: OrderRow | undefined): void {
  waiters.forEach((waiting, index) => {
    if (!row) waiting.reject(new Error("the order upsert returned no row"));
    // A second waiter of one reservation finds the row the first one wrote.
    else waiting.resolve({ ...recorded(row), inserted: row.inserted && index === 0 });
  });
}

/** The reservation is settled by its order: drop it from the pending hash (the reconciler would too). */
export function forgetReservation(saleId: number, reservation: string): void {
  void getRedis().hdel(saleCounterKeys(saleId).pending, reservation).catch(() => {});
}

/**
 * Whether an order's failure says Postgres is not serving orders, so the breaker below should trip:
 * a connection refused, reset or ended, a connect that timed out, a statement Postgres cancelled
 * at its statement timeout, a query that got no answer at all (a partition), an order that waited
 * its bound to go out. Not a full pool (every connection busy, none waited for in time: load on a
 * healthy Postgres), and not an error one row caused (its sale deleted meanwhile).
 */
export function isOrderStoreFailure(error: unknown): boolean {
  if (error instanceof OrderQueueTimeoutError) return true;
  return isConnectionError(error) && !/timeout exceeded when trying to connect/i.test((error as Error).message);
}

/**
 * A breaker in front of the order insert: once an insert failed because Postgres did not answer
 * (isOrderStoreFailure), buyers are turned away with 503 *before* a unit is taken, until a probe
 * answers again. Without it every buyer would take a unit the store cannot record while Postgres
 * is down, and the sale would look sold out. Per process; the probe is one `SELECT 1` shared by
 * every waiting buyer, and a buyer waits for it at most PROBE_WAIT_MS: into a partition the probe
 * itself waits for the main pool's query timeout, and the buyers must not wait with it.
 */
const PROBE_EVERY_MS = 250;
const PROBE_WAIT_MS = 1000;

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
  const probe = (breaker.probing ??= getPool()
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
    }));
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), PROBE_WAIT_MS);
    timer.unref?.();
  });
  try {
    return await Promise.race([probe, late]);
  } finally {
    clearTimeout(timer);
  }
}
