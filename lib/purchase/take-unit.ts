import { getEnv } from "../env";
import { faultDelay, pauseBeforeWrite, type FaultDelays } from "../lab/faults";
import { MIN_LEASE_LEFT_MS } from "../locks/lease";
import { LockBusyError, LockLostError, LockUnavailableError, type HeldLock, type LockOptions, type LockStrategy } from "../locks/types";
import { getRedis } from "../redis";
import type { HolderTimeline } from "../timeline/holder-timeline";
import { saleCounterKeys } from "../sale/keys";
import { enterCriticalSection, takeUnitAtomically, type EntryRefusal, type ReservationMeta } from "./critical-section";
import { OnePerBuyerError } from "./errors";
import { announceChange } from "../workshop/announce";

/** What a strategy must offer to run the critical section (the registry's, or a benchmark peer). */
export type UnitLock = Pick<LockStrategy, "withLock" | "lockFree">;

export interface TakeUnitExtras {
  /** Counted per instance in the holders gauge. @default APP_INSTANCE */
  readonly instance?: string;
  /** Lab (reentrancy): the critical section calls a helper that takes the same lock again. */
  readonly nestedLock?: boolean;
  /** Recorded with the stock write, so a crash before the order insert leaves a unit to settle. */
  readonly reservation?: ReservationMeta;
  /** The lab's delays inside the critical section. */
  readonly faults?: FaultDelays;
  /** Records this purchase on the holder timeline; absent: nothing is recorded. */
  readonly timeline?: HolderTimeline;
  /** Told how long the buyer waited for the lock and held it (ms), once it leaves the critical section. */
  readonly onLockTimes?: (waitMs: number, holdMs: number) => void;
  /**
   * The sale allows one order per buyer: this buyer is checked inside the critical section, under
   * the same lock as the stock, and marked in the same breath as the stock write. Under a lock that
   * does not exclude, two of one buyer's taps both pass: the accounting counts buyers with two orders.
   */
  readonly onePerBuyer?: string;
}

export interface TakenUnit {
  /** The stock read: the unit sold. */
  readonly stockSeen: number;
  readonly stockLeft: number;
}

/** A strategy or knob switch, or a sale reset, is draining the holders: the buyer may retry at once. */
export class SaleSwitchingError extends LockBusyError {
  override name = "SaleSwitchingError";
  constructor(resource: string) {
    super(resource, 0);
    this.message = `the sale of ${resource} is switching strategy or restarting; try again in a moment`;
  }
}

function refused(sku: string, why: EntryRefusal): never {
  if (why === "switching") throw new SaleSwitchingError(sku);
  throw new LockLostError(sku);
}

/**
 * The lock and the Redis side of the critical section, without the order: under `lock`, read the
 * stock, work for `workMs`, check the lease, write stock − 1 (or, lock-free, one atomic decrement).
 * Resolves with the unit taken, or undefined when sold out.
 * @throws LockLostError when the lease had too little time left before the write, or a fenced
 *   store refused the holder as stale: nothing was written, no unit was taken.
 * @throws SaleSwitchingError while a switch drains the holders: nothing was taken.
 */
export async function takeUnit(
  lock: UnitLock,
  sku: string,
  options: LockOptions,
  saleId: number,
  workMs: number,
  extras: TakeUnitExtras = {},
): Promise<TakenUnit | undefined> {
  const redis = getRedis();
  const instance = extras.instance ?? getEnv().APP_INSTANCE;
  const epoch = options.epoch ?? 0;
  const reservation = extras.reservation;
  const timeline = extras.timeline;
  const buyersKey = saleCounterKeys(saleId).buyers;
  const once = extras.onePerBuyer;
  if (lock.lockFree) {
    // No lock to check under: the script checks and marks the buyer in the step that takes the unit.
    const taken = await takeUnitAtomically(redis, saleId, epoch, reservation ?? { id: "", buyer: "", instance, strategy: "", runId: null }, timeline?.holder, once);
    if (taken === "already-bought") throw new OnePerBuyerError(once ?? "");
    if (taken === "sold-out") return undefined;
    if (taken === "switching") refused(sku, taken);
    return taken;
  }

  const askedAt = performance.now();
  const section = async (held: HeldLock): Promise<TakenUnit | undefined> => {
    const heldAt = performance.now();
    try {
      return await criticalSection(held);
    } finally {
      extras.onLockTimes?.(heldAt - askedAt, performance.now() - heldAt);
    }
  };
  const criticalSection = async (held: HeldLock): Promise<TakenUnit | undefined> => {
    const leaseLeft = held.leaseLeftMs ?? held.timeLeftMs;
    timeline?.note("acquired", { f: held.fencingToken }, leaseLeft && performance.now() + leaseLeft());
    const inside = await enterCriticalSection(redis, { saleId, instance, epoch, fencingToken: held.fencingToken, holder: timeline?.holder });
    announceChange(); // the live holder count moved
    const stock = inside.stock;
    if (typeof stock !== "number") refused(sku, stock);
    let written: number | undefined;
    let outcome: Awaited<ReturnType<typeof inside.leave>> = "written";
    try {
      if (stock <= 0) return undefined;
      if (once !== undefined && (await redis.sismember(buyersKey, once))) throw new OnePerBuyerError(once);
      await faultDelay(extras.faults, "in-critical-section");
      if (workMs > 0) await new Promise((resolve) => setTimeout(resolve, workMs));
      // The lease rule: too little time left, and the write would land after the lock is gone.
      if (held.timeLeftMs && held.timeLeftMs() < MIN_LEASE_LEFT_MS) throw new LockLostError(sku);
      // A pause here, after the check, is what only a fencing token catches.
      await pauseBeforeWrite(extras.faults);
      // Chubby's sequencer check, as late as the holder can ask: narrows that window, never closes it.
      if (held.sequencerCurrent && !(await held.sequencerCurrent())) throw new LockLostError(sku);
      written = stock - 1;
    } finally {
      // The buyer is marked by the write itself: whoever holds the lock next sees the mark, and a
      // write that never landed leaves no mark (the reconciler frees the buyer with a unit it gives back).
      const leaving = inside.leave(written, written === undefined ? undefined : reservation, once);
      held.writeSent?.();
      outcome = await leaving;
    }
    if (outcome !== "written") refused(sku, outcome);
    return { stockSeen: stock, stockLeft: written };
  };

  if (!timeline) return underLock(lock, sku, options, section, extras.nestedLock);
  timeline.note("acquire-sent", { b: reservation?.buyer });
  try {
    const taken = await underLock(lock, sku, { ...options, onObserve: timeline.observe }, section, extras.nestedLock);
    timeline.note("released");
    return taken;
  } catch (error) {
    timeline.note(error instanceof LockUnavailableError ? "unavailable" : error instanceof LockLostError ? "lost" : error instanceof LockBusyError ? "busy" : "released");
    throw error;
  }
}

/** The reentrancy lesson: with `nested`, a locked step calls another locked step on the same resource. */
function underLock<T>(lock: UnitLock, sku: string, options: LockOptions, section: (held: HeldLock) => Promise<T>, nested?: boolean): Promise<T> {
  return lock.withLock(sku, options, (held) => (nested ? lock.withLock(sku, options, section) : section(held)));
}
