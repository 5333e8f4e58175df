import type { LockStep } from "../locks/types";
import type { PurchaseStep } from "../purchase/hooks";
import { getRedis } from "../redis";

/**
 * Delays injected at named points of the lock and the purchase, for the pitfall lab. They live in
 * a Redis hash of their own (field = point, value = ms), shared by every instance; a purchase reads
 * it beside its config read, in the same round trip (lib/checkout.ts), and the lab's listeners
 * delay the lock's steps and the purchase's steps where a fault is set.
 */
export const FAULT_POINTS = [
  /** Between SETNX and PEXPIRE (setnx): a crash here leaves a lock that never expires. */
  "after-setnx",
  /** Inside the critical section, after the stock was read: a crash here kills a holder. */
  "in-critical-section",
  /** Between the GET that compares the token and the DEL (token-get-del, token-watch). */
  "before-release-del",
  /**
   * Blocks the holder's whole event loop (a GC pause) after its lease check, just before it
   * writes — the gap only a fencing token closes; budgeted per purchase.
   */
  "pause-before-write",
  /** Holds a watchdog's renewal back before it is sent (a slow network, a busy event loop). */
  "before-renew",
  /** Between the stock write and the order insert: a crash here leaves a reservation to settle. */
  "before-order-insert",
] as const;
export type FaultPoint = (typeof FAULT_POINTS)[number];
export type FaultDelays = Partial<Record<FaultPoint, number>>;

const FAULTS_KEY = "locklab:lab:faults";
/** Points whose delay hits a bounded number of purchases (`times`, default 1), not every one. */
const BUDGETED_POINTS: readonly FaultPoint[] = ["pause-before-write", "before-order-insert"];
/** The Redis key of a budgeted point's remaining holds (a test reads it to see the fault spent). */
export const faultBudgetKey = (point: FaultPoint) => `locklab:fault:budget:${point}`;
const budgetKey = faultBudgetKey;

export function parseFaults(hash: Record<string, string>): FaultDelays {
  const faults: FaultDelays = {};
  for (const point of FAULT_POINTS) {
    const ms = Number(hash[point]);
    if (ms > 0) faults[point] = ms;
  }
  return faults;
}

/**
 * Sets a delay at `point`; at `pause-before-write` and `before-order-insert`, `times` bounds how
 * many purchases it holds (default 1).
 */
export async function setFault(point: FaultPoint, ms: number, times?: number): Promise<void> {
  const redis = getRedis();
  const multi = redis.multi().hset(FAULTS_KEY, point, String(ms));
  if (BUDGETED_POINTS.includes(point)) multi.set(budgetKey(point), String(times ?? 1));
  await multi.exec();
}

export async function clearFault(point: FaultPoint): Promise<void> {
  await getRedis().hdel(FAULTS_KEY, point);
}

export async function clearFaults(): Promise<void> {
  await getRedis().multi().del(FAULTS_KEY, ...BUDGETED_POINTS.map(budgetKey)).exec();
}

export async function getFaults(): Promise<FaultDelays> {
  return parseFaults(await getRedis().hgetall(FAULTS_KEY));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** True while a budgeted point may still hold a purchase (each call spends one). */
async function withinBudget(point: FaultPoint): Promise<boolean> {
  return !BUDGETED_POINTS.includes(point) || (await getRedis().decr(budgetKey(point))) >= 0;
}

/** Waits at `point` when a delay is set there. */
async function faultDelay(faults: FaultDelays | undefined, point: Exclude<FaultPoint, "pause-before-write">): Promise<void> {
  const ms = faults?.[point];
  if (ms && (await withinBudget(point))) await sleep(ms);
}

/**
 * Freezes this whole process (event loop included, like a stop-the-world GC pause) when the
 * pause fault is set and its budget is not used up. Nothing in this instance runs meanwhile:
 * timers, renewals and other buyers all wait.
 */
async function pauseBeforeWrite(faults: FaultDelays | undefined): Promise<void> {
  const ms = faults?.["pause-before-write"];
  if (!ms || !(await withinBudget("pause-before-write"))) return;
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** The lab at a step of the lock's own work (after SETNX, before a renewal, before an unlock's DEL). */
export function atLockStep(faults: FaultDelays, step: LockStep): Promise<void> {
  return faultDelay(faults, step);
}

/** The lab at a step of the purchase: a delay inside the critical section or before the order, a freeze before the write. */
export function atPurchaseStep(faults: FaultDelays, step: PurchaseStep): Promise<void> {
  return step === "before-write" ? pauseBeforeWrite(faults) : faultDelay(faults, step);
}
