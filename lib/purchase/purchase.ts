import { getPool } from "../db";
import { getEnv } from "../env";
import { getStrategy } from "../locks/registry";
import { faultDelay, pauseBeforeWrite } from "../lab/faults";
import { LockBusyError, LockLostError, LockUnavailableError, type HeldLock, type LockOptions, type LockStrategy } from "../locks/types";
import { getRedis } from "../redis";
import { getActiveConfig } from "../sale/config";
import { SKU, STOCK_KEY, saleCounterKeys } from "../sale/keys";
import { getCurrentSale } from "../sale/sale";
import type { BuyCreate } from "../validations/buy";
import { enterCriticalSection, takeUnitAtomically } from "./critical-section";
import { SoldOutError, StoreUnavailableError, UnknownProductError } from "./errors";

export interface PurchaseReceipt {
  readonly order: {
    readonly id: number;
    readonly sku: string;
    readonly buyer: string;
    readonly saleId: number;
    readonly createdAt: string;
  };
  readonly stockLeft: number;
  readonly strategy: string;
  readonly instance: string;
}

/**
 * DESIGN.md's one critical section: under the active strategy's lock, read the stock, do the
 * simulated work, write stock − 1; then record the order in Postgres. A unit taken from Redis
 * whose order cannot be recorded is given back, so no stock is lost to a failing database.
 */
export async function purchase(input: BuyCreate): Promise<PurchaseReceipt> {
  const sku = input.sku ?? SKU;
  if (sku !== SKU) throw new UnknownProductError(sku);
  const instance = getEnv().APP_INSTANCE;
  const redis = getRedis();

  const [config, sale] = await storeCall(() => Promise.all([getActiveConfig(), getCurrentSale()]));
  const strategy = getStrategy(config.strategy);
  const options: LockOptions = {
    ttlMs: config.lockTtlMs,
    waitTimeoutMs: config.waitTimeoutMs,
    onLockLost: () => void redis.incr(saleCounterKeys(sale.id).lockLost).catch(() => {}),
    faults: config.faults,
  };

  const taken = await storeCall(() =>
    takeUnit(strategy, sku, options, sale.id, config.workMs, { instance, nestedLock: config.nestedLock }),
  );
  if (!taken) throw new SoldOutError(sku);

  try {
    const order = await recordOrder({
      sku,
      saleId: sale.id,
      runId: sale.runId ?? null,
      strategy: config.strategy,
      instance,
      buyer: input.buyer,
      stockSeen: taken.stockSeen,
    });
    return {
      order: { id: order.id, sku, buyer: input.buyer, saleId: sale.id, createdAt: order.createdAt.toISOString() },
      stockLeft: taken.stockLeft,
      strategy: config.strategy,
      instance,
    };
  } catch (error) {
    await returnUnit(strategy, sku, options, sale.id, instance).catch(() => {});
    throw new StoreUnavailableError("the order could not be recorded; the unit was returned to stock", { cause: error });
  }
}

interface NewOrder {
  readonly sku: string;
  readonly saleId: number;
  readonly runId: number | null;
  readonly strategy: string;
  readonly instance: string;
  readonly buyer: string;
  readonly stockSeen: number;
}

/**
 * Inserts the order row: one prepared statement straight on the pg pool. Not `order.create`: on
 * Prisma's JS engine every `create` is compiled anew, about 1 ms of CPU, and even a `$queryRaw`
 * costs ~0.2 ms of client machinery against ~0.04 ms here — and this is the one query every
 * purchase runs, on the instance whose event loop paces a locked sale. `created_at` is stored in
 * UTC, as Prisma stores it.
 */
const INSERT_ORDER = {
  name: "locklab-insert-order",
  text: `INSERT INTO orders (sku, sale_id, run_id, strategy, instance, buyer, stock_seen, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, ($8::timestamptz AT TIME ZONE 'UTC'))
         RETURNING id`,
};

async function recordOrder(order: NewOrder): Promise<{ id: number; createdAt: Date }> {
  const createdAt = new Date();
  const { rows } = await getPool().query<{ id: number }>({
    ...INSERT_ORDER,
    values: [order.sku, order.saleId, order.runId, order.strategy, order.instance, order.buyer, order.stockSeen, createdAt.toISOString()],
  });
  const id = rows[0]?.id;
  if (id === undefined) throw new Error("the order insert returned no row");
  return { id: Number(id), createdAt };
}

/** What a strategy must offer to run the critical section (the registry's, or a benchmark peer). */
export type UnitLock = Pick<LockStrategy, "withLock" | "lockFree">;

export interface TakeUnitExtras {
  /** Counted per instance in the holders gauge. @default APP_INSTANCE */
  readonly instance?: string;
  /** Lab (reentrancy): the critical section calls a helper that takes the same lock again. */
  readonly nestedLock?: boolean;
}

/**
 * The lock and the Redis side of the critical section, without the order: under `lock`, read the
 * stock, work for `workMs`, write stock − 1 (or, lock-free, one atomic decrement). Resolves with
 * the stock seen and left, or undefined when sold out.
 * @throws LockLostError when the holder learned it lost the lock before writing (watchdog), or a
 *   fenced store refused it as stale: nothing was written, no unit was taken.
 */
export function takeUnit(lock: UnitLock, sku: string, options: LockOptions, saleId: number, workMs: number, extras: TakeUnitExtras = {}) {
  const redis = getRedis();
  const instance = extras.instance ?? getEnv().APP_INSTANCE;
  if (lock.lockFree) return takeUnitAtomically(redis, saleId);

  const section = async (held: HeldLock) => {
    const inside = await enterCriticalSection(redis, saleId, instance, held.fencingToken);
    if (inside.stock === undefined) throw new LockLostError(sku);
    const stock = inside.stock;
    let written: number | undefined;
    let landed = true;
    try {
      if (stock <= 0) return undefined;
      await faultDelay(options.faults, "in-critical-section");
      if (workMs > 0) await new Promise((resolve) => setTimeout(resolve, workMs));
      await pauseBeforeWrite(options.faults);
      if (held.stopWhenLost && held.signal.aborted) throw new LockLostError(sku);
      written = stock - 1;
    } finally {
      const leaving = inside.leave(written);
      held.writeSent?.();
      landed = await leaving;
    }
    if (written !== undefined && !landed) throw new LockLostError(sku);
    return { stockSeen: stock, stockLeft: written ?? stock };
  };

  // The reentrancy lesson: a locked step that calls another locked step on the same resource.
  return lock.withLock(sku, options, (held) =>
    extras.nestedLock ? lock.withLock(sku, options, section) : section(held),
  );
}

/**
 * Gives back a unit whose order could not be recorded, under the same lock as the purchase. The
 * locked purchase writes the stock with a blind SET of what it read, so an INCR outside the lock
 * would be overwritten by a holder that read the stock before it: the unit would be lost (measured:
 * 3 of 20 units gone with Postgres stopped). Lock-free, one INCR is already atomic.
 */
async function returnUnit(lock: UnitLock, sku: string, options: LockOptions, saleId: number, instance: string): Promise<void> {
  const redis = getRedis();
  if (lock.lockFree) {
    await redis.incr(STOCK_KEY);
    return;
  }
  await lock.withLock(sku, options, async (held) => {
    const inside = await enterCriticalSection(redis, saleId, instance, held.fencingToken);
    if (inside.stock === undefined) throw new LockLostError(sku);
    const leaving = inside.leave(inside.stock + 1);
    held.writeSent?.();
    if (!(await leaving)) throw new LockLostError(sku);
  });
}

/** A Redis or Postgres server that is down or not answering becomes a 503, not a 500. */
async function storeCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!isConnectionError(error)) throw error;
    throw new StoreUnavailableError(`a backing server did not answer: ${(error as Error).message}`, { cause: error });
  }
}

const CONNECTION_FAILURE =
  /ECONNREFUSED|ECONNRESET|EPIPE|Connection is closed|Command timed out|MaxRetriesPerRequest|Stream isn't writeable|enableOfflineQueue|Can't reach database|P1001|P1017|connection terminated|terminating connection|Connection terminated|timeout exceeded when trying to connect/i;

function isConnectionError(error: unknown): boolean {
  if (error instanceof LockBusyError || error instanceof LockUnavailableError) return false;
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return CONNECTION_FAILURE.test(`${error.name} ${String(code ?? "")} ${error.message}`);
}
