/** The contended workload every row runs: N one-shot buyers kept in flight on the one hot key. */
export interface Workload {
  /** Buyers in flight at once; each tries once, and a new one starts when one finishes. */
  readonly buyers: number;
  /** How long new buyers keep starting; throughput counts purchases finished inside it. */
  readonly windowMs: number;
  readonly waitTimeoutMs: number;
  readonly ttlMs: number;
  readonly workMs: number;
  /** A buyer still without an answer at waitTimeoutMs + this is counted as starved. */
  readonly starvationSlackMs: number;
  /** Units on sale per row: far more than any row can sell, so nobody meets "sold out". */
  readonly initialStock: number;
}

export const DEFAULT_WORKLOAD: Workload = Object.freeze({
  buyers: 50,
  windowMs: 4000,
  waitTimeoutMs: 5000,
  ttlMs: 2000,
  workMs: 0,
  starvationSlackMs: 500,
  initialStock: 10_000_000,
});
