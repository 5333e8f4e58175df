import { getEnv } from "../env";
import { MIN_LEASE_LEFT_MS } from "../locks/lease";
import { LockBusyError, LockLostError, LockUnavailableError, type HeldLock, type LockOptions, type LockStrategy } from "../locks/types";
import { getRedis, getSerialConnection } from "../redis";
import { saleCounterKeys } from "../sale/keys";
import { OnePerBuyerError } from "../sale/rules/one-per-buyer";
import { enterCriticalSection, takeUnitAtomically, type EntryRefusal, type ReservationMeta } from "./critical-section";
import type { LockTurn, PurchaseHooks } from "./hooks";

/** What a strategy must offer to run the critical section (the registry's, or a benchmark peer). */
export type UnitLock = Pick<LockStrategy, "withLock" | "lockFree">;

export interface TakeUnitExtras {
  /** Counted per instance in the holders gauge. @default APP_INSTANCE */
  readonly instance?: string;
  /** Lab (reentrancy): the critical section calls a helper that takes the same lock again. */
  readonly nestedLock?: boolean;
  /** Recorded with the stock write, so a crash before the order insert leaves a unit to settle. */
  readonly reservation?: ReservationMeta;
  /** The id the stock's reads and writes are recorded under in the sale's events; "" records none. */
  readonly holder?: string;
  /**
   * The sale allows one order per buyer: this buyer is checked inside the critical section, under
   * the same lock as the stock, and marked in the same breath as the stock write.
   */
  readonly onePerBuyer?: string;
  readonly hooks?: PurchaseHooks;
  /**
   * A safe lock's buyers may trust a sold-out seen under the lock by this process a moment ago
   * (SOLD_OUT_SEEN_MS) and answer sold out without queueing for the lock. Under a safe lock the
   * stock only comes back by the reconciler giving a unit back, which the next look after that
   * moment finds. Not for unsafe locks: their lost updates put stock back, and the lesson is
   * whatever they do with it.
   */
  readonly trustSoldOut?: boolean;
}

/** How long a sold-out seen under a safe lock answers this process's later buyers without the lock. */
export const SOLD_OUT_SEEN_MS = 500;

/** Per process: sale and epoch → when a holder here last read the stock at zero. */
const soldOutSeen = new Map<string, number>();

const soldOutKey = (saleId: number, epoch: number) => `${saleId}:${epoch}`;

/** A holder in this process read the stock of this sale and epoch at zero less than SOLD_OUT_SEEN_MS ago. */
export function seenSoldOut(saleId: number, epoch: number): boolean {
  const at = soldOutSeen.get(soldOutKey(saleId, epoch));
  return at !== undefined && performance.now() - at < SOLD_OUT_SEEN_MS;
}

function noteSoldOut(saleId: number, epoch: number): void {
  if (soldOutSeen.size > 16) soldOutSeen.clear(); // old sales: one entry each, never read again
  soldOutSeen.set(soldOutKey(saleId, epoch), performance.now());
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const turnOf = (error: unknown): LockTurn["kind"] =>
  error instanceof LockUnavailableError ? "unavailable" : error instanceof LockLostError ? "lost" : error instanceof LockBusyError ? "busy" : "released";

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
  const { reservation, holder = "", onePerBuyer: once, hooks = {} } = extras;
  const instance = extras.instance ?? getEnv().APP_INSTANCE;
  const epoch = options.epoch ?? 0;
  if (lock.lockFree) {
    // No lock to check under: the script checks and marks the buyer in the step that takes the unit.
    const taken = await takeUnitAtomically(redis, saleId, epoch, reservation ?? { id: "", buyer: "", instance, strategy: "", runId: null }, holder, once);
    if (taken === "already-bought") throw new OnePerBuyerError(once ?? "");
    if (taken === "sold-out") return undefined;
    if (taken === "switching") refused(sku, taken);
    return taken;
  }

  // The locked critical section reads and writes on node 1's serial connection, the one the
  // single-node locks use too (lib/redis.ts): nothing the instance's other buyers issue waits in
  // front of a holder there, and a release there runs after the holder's write.
  const serial = getSerialConnection();
  // A sold-out seen here a moment ago is asked before the line by the purchase (lib/purchase/purchase.ts),
  // so the line is only the buyers who can still get one; a buyer already waiting asks it at the head.
  const trust = extras.trustSoldOut === true;

  const askedAt = performance.now();
  const criticalSection = async (held: HeldLock): Promise<TakenUnit | undefined> => {
    // Waited in line while the holder before sold the last unit: nothing to read.
    if (trust && seenSoldOut(saleId, epoch)) return undefined;
    const heldAt = performance.now();
    const leaseLeft = held.leaseLeftMs ?? held.timeLeftMs;
    hooks.lock?.({ kind: "acquired", fencingToken: held.fencingToken, leaseEndsAt: leaseLeft && heldAt + leaseLeft() });
    try {
      return await readWorkWrite(held);
    } finally {
      hooks.lockTimes?.(heldAt - askedAt, performance.now() - heldAt);
    }
  };
  const readWorkWrite = async (held: HeldLock): Promise<TakenUnit | undefined> => {
    const inside = await enterCriticalSection(serial, { saleId, instance, epoch, fencingToken: held.fencingToken, holder });
    hooks.changed?.(); // the holders inside moved
    const stock = inside.stock;
    if (typeof stock !== "number") refused(sku, stock);
    let written: number | undefined;
    let outcome: Awaited<ReturnType<typeof inside.leave>> = "written";
    try {
      if (stock <= 0) {
        if (trust) noteSoldOut(saleId, epoch);
        return undefined;
      }
      if (once !== undefined && (await serial.sismember(saleCounterKeys(saleId).buyers, once))) throw new OnePerBuyerError(once);
      // Awaited only when there is a step to run: an await of nothing still queues the holder
      // behind every callback the instance has waiting, while the lock is held.
      if (hooks.step) await hooks.step("in-critical-section");
      if (workMs > 0) await sleep(workMs);
      // The lease rule: too little time left, and the write would land after the lock is gone.
      if (held.timeLeftMs && held.timeLeftMs() < MIN_LEASE_LEFT_MS) throw new LockLostError(sku);
      // A pause here, after the check, is what only a fencing token catches.
      if (hooks.step) await hooks.step("before-write");
      // Chubby's sequencer check, as late as the holder can ask: narrows that window, never closes it.
      if (held.sequencerCurrent && !(await held.sequencerCurrent())) throw new LockLostError(sku);
      written = stock - 1;
    } finally {
      // The buyer is marked by the write itself: whoever holds the lock next sees the mark, and a
      // write that never landed leaves no mark (the reconciler frees the buyer with a unit it gives back).
      const leaving = inside.leave(written, written === undefined ? undefined : reservation, once);
      held.writeSent?.(serial);
      outcome = await leaving;
    }
    if (outcome !== "written") refused(sku, outcome);
    return { stockSeen: stock, stockLeft: written };
  };

  hooks.lock?.({ kind: "asked" });
  const lockOptions: LockOptions = { ...options, onStep: hooks.lockStep, onObserve: hooks.observe };
  try {
    // The reentrancy lesson: with `nestedLock`, the locked step calls another locked step on the same resource.
    const taken = await lock.withLock(sku, lockOptions, (held) =>
      extras.nestedLock ? lock.withLock(sku, lockOptions, criticalSection) : criticalSection(held));
    hooks.lock?.({ kind: "released" });
    return taken;
  } catch (error) {
    hooks.lock?.({ kind: turnOf(error) });
    throw error;
  }
}
