import { getRedis } from "../redis";
import { CONFIG_KEY } from "../sale/keys";

/**
 * Delays injected at named points of the critical section, for the pitfall lab. They live in the
 * shared config hash (fields `fault:<point>`), so every instance sees them with the config it
 * already reads on each purchase: no extra round trip while no fault is set.
 */
export const FAULT_POINTS = [
  /** Between SETNX and PEXPIRE (setnx): a crash here leaves a lock that never expires. */
  "after-setnx",
  /** Inside the critical section, after the stock was read: a crash here kills a holder. */
  "in-critical-section",
  /** Between the GET that compares the token and the DEL (token-get-del, token-watch). */
  "before-release-del",
  /** Blocks the holder's whole event loop before it writes (a GC pause); budgeted per purchase. */
  "pause-before-write",
] as const;
export type FaultPoint = (typeof FAULT_POINTS)[number];
export type FaultDelays = Partial<Record<FaultPoint, number>>;

const FIELD_PREFIX = "fault:";
const PAUSE_BUDGET_KEY = "locklab:fault:pause-budget";

export function parseFaults(hash: Record<string, string>): FaultDelays {
  const faults: FaultDelays = {};
  for (const point of FAULT_POINTS) {
    const ms = Number(hash[FIELD_PREFIX + point]);
    if (ms > 0) faults[point] = ms;
  }
  return faults;
}

/** Sets a delay at `point`; for `pause-before-write`, `times` bounds how many purchases pause. */
export async function setFault(point: FaultPoint, ms: number, times?: number): Promise<void> {
  const redis = getRedis();
  const multi = redis.multi().hset(CONFIG_KEY, FIELD_PREFIX + point, String(ms));
  if (point === "pause-before-write") multi.set(PAUSE_BUDGET_KEY, String(times ?? 1));
  await multi.exec();
}

export async function clearFault(point: FaultPoint): Promise<void> {
  await getRedis().hdel(CONFIG_KEY, FIELD_PREFIX + point);
}

export async function clearFaults(): Promise<void> {
  await getRedis().multi().hdel(CONFIG_KEY, ...FAULT_POINTS.map((point) => FIELD_PREFIX + point)).del(PAUSE_BUDGET_KEY).exec();
}

export async function getFaults(): Promise<FaultDelays> {
  return parseFaults(await getRedis().hgetall(CONFIG_KEY));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits at `point` when a delay is set there. */
export async function faultDelay(faults: FaultDelays | undefined, point: Exclude<FaultPoint, "pause-before-write">): Promise<void> {
  const ms = faults?.[point];
  if (ms) await sleep(ms);
}

/**
 * Freezes this whole process (event loop included, like a stop-the-world GC pause) when the
 * pause fault is set and its budget is not used up. Nothing in this instance runs meanwhile:
 * timers, renewals and other buyers all wait.
 */
export async function pauseBeforeWrite(faults: FaultDelays | undefined): Promise<void> {
  const ms = faults?.["pause-before-write"];
  if (!ms) return;
  if ((await getRedis().decr(PAUSE_BUDGET_KEY)) < 0) return;
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
