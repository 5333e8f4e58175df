/**
 * The one rule every lease follows (token locks, Redlock, the row lock, and every lease added
 * later): its validity is counted on the monotonic clock from the moment the acquire (or the last
 * successful renewal) was *sent* — the lock service started its countdown no earlier than that —
 * minus a clock-drift allowance. Just before its write the holder asks how much is left and stops
 * with `lock_lost` when too little is; a pause between that check and the write is what only a
 * fencing token closes.
 */
export const now = (): number => performance.now();

/** Clock drift allowance for a lease of `ttlMs`: 1 % plus 2 ms (Redlock's defaults). */
export function driftMs(ttlMs: number, driftFactor = 0.01, driftFixedMs = 2): number {
  return Math.round(ttlMs * driftFactor) + driftFixedMs;
}

/** When a lease of `ttlMs` whose acquire was sent at `sentAt` (monotonic ms) stops being ours. */
export function leaseEnd(sentAt: number, ttlMs: number): number {
  return sentAt + ttlMs - driftMs(ttlMs);
}

/** The least a holder must have left to send its write: the write's own trip to the store. */
export const MIN_LEASE_LEFT_MS = 2;
