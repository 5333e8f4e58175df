import { randomUUID } from "node:crypto";
import { getEnv } from "../env";
import { StoreUnavailableError } from "../errors";
import { getStrategy } from "../locks/registry";
import { LockBusyError, type LockOptions } from "../locks/types";
import { getRedis } from "../redis";
import { getActiveConfig } from "../sale/config";
import { SKU, saleCounterKeys } from "../sale/keys";
import { hitBuyerLimit } from "../sale/rules/buyer-limit";
import { assertDropOpen } from "../sale/rules/drop";
import { getCurrentSale } from "../sale/sale";
import { storeCall } from "../store-call";
import type { BuyCreate } from "../validations/buy";
import { holderOf, type ReservationMeta } from "./critical-section";
import { SoldOutError, UnknownProductError } from "./errors";
import type { PurchaseArrival, PurchaseHooks, PurchaseReceipt } from "./hooks";
import { forgetReservation, isOrderStoreFailure, noteOrderStoreDown, orderStoreUp, recordOrder } from "./order-store";
import { SaleSwitchingError, seenSoldOut, takeUnit } from "./take-unit";

export { takeUnit, type UnitLock } from "./take-unit";

/**
 * The one critical section: under the active strategy's lock, read the stock, do the
 * simulated work, write stock − 1 together with a reservation of that unit; then record the order
 * in Postgres, idempotently on the reservation. An order that cannot be recorded leaves the
 * reservation for the reconciler, which records it or puts the unit back — never both, never
 * neither — so no unit is lost to a failing database or a crash between the two writes.
 * The sale's rules (a drop not open, the per-buyer limit, one order per buyer) refuse a buyer
 * before anything is taken. What the purchase does is told to `hooks` (./hooks.ts).
 */
export async function purchase(input: BuyCreate, arrival: PurchaseArrival = {}, hooks: PurchaseHooks = {}): Promise<PurchaseReceipt> {
  const known: Known = { strategy: "unknown", reachedStock: false };
  try {
    const receipt = await purchaseUnit(input, arrival.arrivedAt ?? Date.now(), hooks, known);
    hooks.ended?.({ ...known, receipt });
    return receipt;
  } catch (error) {
    hooks.ended?.({ ...known, error });
    throw error;
  } finally {
    // The stock and the holders may have moved; a buyer turned away before the stock (the drop not
    // open, the buyer's limit, a sold-out this process saw a moment ago) moved nothing to announce.
    if (known.reachedStock) hooks.changed?.();
  }
}

interface Known {
  strategy: string;
  saleId?: number;
  /** The buyer went on to the stock (its lock, or the lock-free step): what the pages show may have moved. */
  reachedStock: boolean;
}

async function purchaseUnit(input: BuyCreate, arrivedAt: number, hooks: PurchaseHooks, known: Known): Promise<PurchaseReceipt> {
  const sku = input.sku ?? SKU;
  if (sku !== SKU) throw new UnknownProductError(sku);
  if (!(await orderStoreUp())) {
    throw new StoreUnavailableError("PostgreSQL does not answer, so no order could be recorded; nothing was sold");
  }
  // One round trip: the buyer's rate window and the listeners' own reads ride with the config and sale reads.
  const [config, sale] = await storeCall(() => Promise.all([getActiveConfig(), getCurrentSale(), hitBuyerLimit(input.buyer), hooks.prepare?.()]));
  Object.assign(known, { strategy: config.strategy, saleId: sale.id });
  assertDropOpen(sale);
  if (config.draining) throw new SaleSwitchingError(sku);

  const instance = getEnv().APP_INSTANCE;
  const strategy = getStrategy(config.strategy);
  const reservation: ReservationMeta = { id: randomUUID(), buyer: input.buyer, instance, strategy: config.strategy, runId: sale.runId ?? null };
  const holder = config.recordTimeline ? holderOf(reservation.id) : "";
  hooks.begin?.({ saleId: sale.id, buyer: input.buyer, instance, strategy: config.strategy, holder });
  const options: LockOptions = {
    ttlMs: config.lockTtlMs,
    // Counted from arrival; nothing but synchronous setup stands between here and the lock.
    waitTimeoutMs: waitLeftMs(config.waitTimeoutMs, arrivedAt, sku),
    onLockLost: () => void getRedis().incr(saleCounterKeys(sale.id).lockLost).catch(() => {}),
    epoch: config.epoch,
    lockDelayMs: config.lockDelayMs,
  };
  // A hall's late tappers: a safe lock's sold-out read here a moment ago answers them without the lock.
  if (strategy.safe && seenSoldOut(sale.id, config.epoch)) throw new SoldOutError(sku);
  known.reachedStock = true;
  const taken = await storeCall(() =>
    takeUnit(strategy, sku, options, sale.id, config.workMs, {
      instance, nestedLock: config.nestedLock, reservation, holder, hooks, trustSoldOut: strategy.safe,
      ...(sale.onePerBuyer ? { onePerBuyer: input.buyer } : {}),
    }),
  );
  if (!taken) throw new SoldOutError(sku);
  // The unit is reserved: its order waits (briefly, bounded) until this instance lets go of the lock.
  await strategy.whenLetGo?.(sku);
  await hooks.step?.("before-order-insert");

  const order = await recordOrder({
    reservation: reservation.id, sku, saleId: sale.id, runId: reservation.runId, strategy: config.strategy, instance,
    buyer: input.buyer, unit: taken.stockSeen, status: "sold", reconciled: false,
  }).catch((error: unknown) => {
    // Postgres down, stalled or cut off trips the breaker (a timeout too); a full pool is load, not that.
    if (isOrderStoreFailure(error)) noteOrderStoreDown();
    throw new StoreUnavailableError(
      `the order could not be recorded; unit ${taken.stockSeen} stays reserved (reservation ${reservation.id}) `
        + "and is settled within seconds: recorded as your order, or put back on the shelf",
      { cause: error, reason: "order_pending", unit: taken.stockSeen },
    );
  });
  if (order.status === "settling") {
    // The reconciler is settling this reservation and could not learn whether it put the unit back
    // (Redis node 1 did not answer): not sold, and not forgotten — the reservation is how the
    // reconciler learns, and it settles the unit as this buyer's order or back on the shelf.
    throw new StoreUnavailableError(
      `the order could not be recorded yet; unit ${taken.stockSeen} stays reserved (reservation ${reservation.id}) `
        + "and is settled once Redis answers: recorded as your order, or put back on the shelf",
      { reason: "order_pending", unit: taken.stockSeen },
    );
  }
  forgetReservation(sale.id, reservation.id);
  if (order.status === "returned") {
    // The reconciler gave the unit back and freed the buyer with it (GIVE_BACK_UNIT): they may try
    // again under the one-order rule. Nothing is undone here: by now they may have bought again.
    throw new StoreUnavailableError(`your purchase took too long to record: unit ${taken.stockSeen} was put back on the shelf; nothing was sold`, {
      reason: "put_back", unit: taken.stockSeen,
    });
  }
  hooks.ordered?.(taken.stockSeen);
  return {
    order: { id: order.id, sku, buyer: input.buyer, saleId: sale.id, unit: taken.stockSeen, createdAt: order.createdAt.toISOString() },
    stockLeft: taken.stockLeft,
    strategy: config.strategy,
    instance,
  };
}

/**
 * What is left of the buyer's wait timeout, counted from arrival: time queued at a busy instance
 * and the reads before the lock are part of the wait. A request that already spent it all is
 * answered busy here, before it touches the stock. A timeout of 0 (never wait) stays 0.
 */
function waitLeftMs(waitTimeoutMs: number, arrivedAt: number, sku: string): number {
  if (waitTimeoutMs <= 0) return waitTimeoutMs;
  const waited = Date.now() - arrivedAt;
  const left = Math.floor(waitTimeoutMs - waited);
  if (left <= 0) {
    throw new LockBusyError(sku, waitTimeoutMs, `this request already waited ${Math.round(waited)} ms in the instance's queue and on its way to the lock`);
  }
  return left;
}
