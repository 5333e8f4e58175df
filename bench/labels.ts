import type { StrategyName } from "../lib/locks/strategies";

/**
 * The row labels the runner, the tables and the aims agree on. Pure: the unit tests import it
 * without a stack.
 */

/** The project's locks every run measures, in table order. */
export const PROJECT_ROWS: readonly StrategyName[] = ["none", "local", "setnx", "token-lua", "redlock", "pg-for-update", "atomic", "sentinel", "sentinel-wait", "zookeeper", "etcd"];
export const UNSAFE: ReadonlySet<string> = new Set(["none", "local", "setnx"]);

/** The safe locks the contention curve follows from 10 to 1,000 buyers. */
export const CURVE_STRATEGIES: readonly StrategyName[] = ["token-lua", "redlock", "pg-for-update", "atomic"];

/** Over HTTP, the holder timeline's cost is measured on these, recording on and off. */
export const TIMELINE_ROWS: readonly StrategyName[] = ["token-lua", "atomic"];
export const TIMELINE_ON = " (timeline on)";
export const TIMELINE_OFF = " (timeline off)";

/**
 * Over HTTP, the store node's append-only file (scripts/stack/services/redis.ts) is measured on
 * the same rows, on and off (CONFIG SET appendonly on node 1), in blocks of on, off, off, on.
 */
export const AOF_ROWS: readonly StrategyName[] = TIMELINE_ROWS;
export const AOF_ON = " (append-only file on)";
export const AOF_OFF = " (append-only file off)";

/**
 * Over HTTP, `token-lua` ÷ `atomic` is also measured in blocks of token-lua, atomic, atomic,
 * token-lua windows (the row BENCH_ONLY calls PAIRED_ROW); its two results carry PAIRED.
 */
export const PAIRED_ROW = "token-lua vs atomic";
/** The critical section run one buyer at a time with no lock (bench/serial-ceiling.ts): the most any lock can reach. */
export const SERIAL_CEILING = "serial ceiling (no lock: one buyer at a time)"; // no comma: BENCH_ONLY splits on commas
export const PAIRED = " (paired)";
/**
 * In-process, `token-lua` and `redlock` ÷ the serial ceiling are also measured in rounds of short
 * windows of the three, at 50 and 200 buyers (the row BENCH_ONLY calls CEILING_ROW); its results
 * carry CEILING_ROUNDS.
 */
export const CEILING_ROW = "locks vs the serial ceiling";
export const CEILING_ROUNDS = " (ceiling rounds)";
/** The locks measured against the serial ceiling. */
export const CEILING_LOCKS: readonly StrategyName[] = ["token-lua", "redlock"];
/** Also in the ceiling's rounds: the lock in the process's own memory, which should beat both. */
export const CEILING_LOCAL: StrategyName = "local";

/**
 * In-process, `redlock` ÷ the best Redlock peer of the main table is also measured in blocks of
 * redlock, peer, peer, redlock windows at each number of buyers its aims are checked at (the row
 * BENCH_ONLY calls REDLOCK_PEER_ROW); its two results carry PEER_BLOCKS.
 */
export const REDLOCK_PEER_ROW = "redlock vs its best peer";
export const PEER_BLOCKS = " (peer blocks)";

/** The project's lock a row measures (a timeline or paired row counts as its strategy's), or undefined for a peer. */
export function projectLock(label: string): StrategyName | undefined {
  const suffixed = [TIMELINE_ON, TIMELINE_OFF, AOF_ON, AOF_OFF, PAIRED, CEILING_ROUNDS, PEER_BLOCKS].some((suffix) => label.endsWith(suffix));
  const name = suffixed ? label.slice(0, label.lastIndexOf(" (")) : label;
  return PROJECT_ROWS.find((row) => row === name);
}
