/**
 * The chaos suite's rules for a fault to count, pure so that unit tests can show a fault that did
 * not form being refused (tests/unit/chaos-reach.test.ts).
 */
import type { StrategyName } from "@/lib/locks/strategies";

export type FaultName = "stop-redis" | "kill-redis-1" | "kill-app" | "pause-app" | "stop-postgres" | "delay-renewal";
export const FAULTS: readonly FaultName[] = ["stop-redis", "kill-redis-1", "kill-app", "pause-app", "stop-postgres", "delay-renewal"];

/** The strategies that claim to be safe under these faults, each played at least once per suite run. */
export const CHAOS_STRATEGIES = ["token-fencing", "token-watchdog", "redlock", "pg-for-update", "atomic"] as const satisfies readonly StrategyName[];
export type ChaosStrategy = (typeof CHAOS_STRATEGIES)[number];

/**
 * What each fault reaches, so a strategy draws only faults that touch what it uses:
 *  - `stop-redis` stops Redis nodes 2–5, which only Redlock's quorum uses;
 *  - `delay-renewal` holds back a watchdog's renewals, which only token-watchdog makes;
 *  - `pause-app` freezes an instance past the TTL, which only a fence survives (and the lock-free
 *    strategy, which has no lease): token-watchdog and redlock would fail it as the lesson says;
 *  - node 1 (the stock), an instance and Postgres (the orders) are used by every purchase.
 */
const REACHES: Record<FaultName, (strategy: ChaosStrategy) => boolean> = {
  "stop-redis": (strategy) => strategy === "redlock",
  "delay-renewal": (strategy) => strategy === "token-watchdog",
  "pause-app": (strategy) => strategy === "token-fencing" || strategy === "pg-for-update" || strategy === "atomic",
  "kill-redis-1": () => true,
  "kill-app": () => true,
  "stop-postgres": () => true,
};

export function faultsFor(strategy: ChaosStrategy): FaultName[] {
  return FAULTS.filter((fault) => REACHES[fault](strategy));
}

/** When a fault was put in force and when it was undone (Date.now() ms). */
export interface FaultWindow {
  readonly name: FaultName;
  readonly from: number;
  readonly to: number;
}

/** The first wave of buyers: when its first request left and when its last answer came (ms). */
export interface Wave {
  readonly startedAt: number;
  readonly endedAt: number;
}

/**
 * Whether every fault of a run hit the sale: each was put in force while the first wave had
 * purchases in flight (it keeps its buyers in flight from its first request to its last answer),
 * and the sale still sold after it began (a unit bought after, in either wave: it had stock to
 * lose). A fault still waiting for its number of units when the first wave ended fires with no
 * buyer in flight, and does not count, even though the second wave then sells.
 */
export function everyFaultHit(firstWave: Wave, lastBoughtAt: number | undefined, windows: readonly FaultWindow[]): boolean {
  if (lastBoughtAt === undefined || windows.length === 0) return false;
  return windows.every((window) => window.from >= firstWave.startedAt && window.from < firstWave.endedAt && window.from <= lastBoughtAt);
}

/** The strategy the next run plays: the first of those counted least so far, so each is played. */
export function nextStrategy(counted: readonly ChaosStrategy[]): ChaosStrategy {
  const times = (strategy: ChaosStrategy) => counted.filter((played) => played === strategy).length;
  return CHAOS_STRATEGIES.reduce((least, strategy) => (times(strategy) < times(least) ? strategy : least));
}
