import { randomUUID } from "node:crypto";
import { getEnv } from "../env";
import { faultDelay } from "../lab/faults";
import { lineLetGo } from "../locks/local-line";
import { getStrategy } from "../locks/registry";
import { countOutcome, observeLock, outcomeOf, type Outcome } from "../metrics";
import { LockBusyError, type LockOptions } from "../locks/types";
import { getRedis } from "../redis";
import { getActiveConfig } from "../sale/config";
import { SKU, saleCounterKeys } from "../sale/keys";
import { noteRefusal } from "../sale/liveness";
import { getCurrentSale } from "../sale/sale";
import { appRecorder, holderId, holderTimeline } from "../timeline/holder-timeline";
import type { BuyCreate } from "../validations/buy";
import type { ReservationMeta } from "./critical-section";
import { SoldOutError, StoreUnavailableError, UnknownProductError } from "./errors";
import { isConnectionError, storeCall } from "../store-call";
import { forgetReservation, noteOrderStoreDown, orderStoreUp, recordOrder } from "./order-store";
import { SaleSwitchingError, takeUnit } from "./take-unit";
import { announceChange } from "../workshop/announce";
import { assertDropOpen } from "../workshop/drop";
import { hitBuyerLimit } from "../workshop/rate-limit";

export { takeUnit, type UnitLock } from "./take-unit";

export interface PurchaseReceipt {
  readonly order: {
    readonly id: number;
    readonly sku: string;
    readonly buyer: string;
    readonly saleId: number;
    /** The unit sold (the stock the buyer read). */
    readonly unit: number;
    readonly createdAt: string;
  };
  readonly stockLeft: number;
  readonly strategy: string;
  readonly instance: string;
}

export interface PurchaseArrival {
  /**
   * When the request arrived (Date.now() clock): nginx's stamp (lib/http/request-start.ts), or the
   * handler's start. The buyer's wait timeout counts from here. @default the call's start
   */
  readonly arrivedAt?: number;
}

/**
 * DESIGN.md's one critical section: under the active strategy's lock, read the stock, do the
 * simulated work, write stock − 1 together with a reservation of that unit; then record the order
 * in Postgres, idempotently on the reservation. An order that cannot be recorded leaves the
 * reservation for the reconciler, which records it or puts the unit back — never both, never
 * neither — so no unit is lost to a failing database or a crash between the two writes.
 */
export async function purchase(input: BuyCreate, arrival: PurchaseArrival = {}): Promise<PurchaseReceipt> {
  const counted: { strategy: string; saleId?: number } = { strategy: "unknown" };
  try {
    const receipt = await purchaseUnit(input, counted, arrival.arrivedAt ?? Date.now());
    countOutcome("bought", receipt.strategy);
    return receipt;
  } catch (error) {
    const outcome = outcomeOf(error);
    countOutcome(outcome, counted.strategy);
    // A buyer the lock or a server turned away: the sale's liveness (lib/sale/liveness.ts).
    if (counted.saleId !== undefined && TURNED_AWAY.has(outcome)) noteRefusal(counted.saleId);
    throw error;
  } finally {
    // The live pages (workshop mode) look again: stock and holders may have moved.
    announceChange();
  }
}

/** Outcomes that mean the store failed the buyer, not that the sale or its rules said no. */
const TURNED_AWAY: ReadonlySet<Outcome> = new Set(["busy", "unavailable", "lock_lost", "error"]);

async function purchaseUnit(input: BuyCreate, counted: { strategy: string; saleId?: number }, arrivedAt: number): Promise<PurchaseReceipt> {
  const sku = input.sku ?? SKU;
  if (sku !== SKU) throw new UnknownProductError(sku);
  const instance = getEnv().APP_INSTANCE;
  const redis = getRedis();
  if (!(await orderStoreUp())) {
    throw new StoreUnavailableError("PostgreSQL does not answer, so no order could be recorded; nothing was sold");
  }

  // One round trip: the buyer's rate window rides with the config and sale reads.
  const [config, sale] = await storeCall(() => Promise.all([getActiveConfig(), getCurrentSale(), hitBuyerLimit(input.buyer)]));
  counted.strategy = config.strategy;
  counted.saleId = sale.id;
  assertDropOpen(sale);
  if (config.draining) throw new SaleSwitchingError(sku);
  const strategy = getStrategy(config.strategy);
  const options: LockOptions = {
    ttlMs: config.lockTtlMs,
    // Counted from arrival; nothing but synchronous setup stands between here and the lock.
    waitTimeoutMs: waitLeftMs(config.waitTimeoutMs, arrivedAt, sku),
    onLockLost: () => void redis.incr(saleCounterKeys(sale.id).lockLost).catch(() => {}),
    // The lab's delays at the lock's own steps.
    onStep: (step) => faultDelay(config.faults, step),
    epoch: config.epoch,
    lockDelayMs: config.lockDelayMs,
  };
  const reservation: ReservationMeta = { id: randomUUID(), buyer: input.buyer, instance, strategy: config.strategy, runId: sale.runId ?? null };
  const timeline = config.recordTimeline ? holderTimeline(appRecorder(), sale.id, holderId(reservation.id), instance) : undefined;

  const taken = await storeCall(() =>
    takeUnit(strategy, sku, options, sale.id, config.workMs, {
      instance, nestedLock: config.nestedLock, reservation, faults: config.faults, timeline,
      onLockTimes: (waitMs, holdMs) => observeLock(config.strategy, waitMs, holdMs),
      ...(sale.onePerBuyer ? { onePerBuyer: input.buyer } : {}),
    }),
  );
  if (!taken) throw new SoldOutError(sku);
  // The unit is reserved: its order waits (briefly, bounded) until this instance's line lets go of the lock.
  await lineLetGo(sku);

  await faultDelay(config.faults, "before-order-insert");
  let order;
  try {
    order = await recordOrder({
      reservation: reservation.id,
      sku,
      saleId: sale.id,
      runId: reservation.runId,
      strategy: config.strategy,
      instance,
      buyer: input.buyer,
      unit: taken.stockSeen,
      status: "sold",
      reconciled: false,
    });
  } catch (error) {
    // A full pool ("timeout exceeded when trying to connect") is load, not Postgres down.
    if (isConnectionError(error) && !/timeout exceeded when trying to connect/i.test((error as Error).message)) noteOrderStoreDown();
    throw new StoreUnavailableError(
      `the order could not be recorded; unit ${taken.stockSeen} stays reserved for ${input.buyer} (reservation ${reservation.id}) `
        + "and is settled within seconds: recorded as your order, or put back on the shelf",
      { cause: error },
    );
  }
  forgetReservation(sale.id, reservation.id);
  if (order.status !== "returned") timeline?.note("order", { u: taken.stockSeen });
  if (order.status === "returned") {
    // The reconciler gave the unit back and freed the buyer with it (GIVE_BACK_UNIT): they may try
    // again under the one-order rule. Nothing is undone here: by now they may have bought again.
    throw new StoreUnavailableError(`your purchase took too long to record: unit ${taken.stockSeen} was put back on the shelf; nothing was sold`);
  }
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
