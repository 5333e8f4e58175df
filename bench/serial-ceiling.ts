import { NEVER_ABORTED } from "../lib/locks/types";
import type { UnitLock } from "../lib/purchase/purchase";

/**
 * The most any lock can reach: the critical section itself, one buyer at a time, with no lock — each
 * buyer starts the moment the one before it has *sent* its write, so its read travels right behind
 * that write on the stock's connection, as the locks' own hand-off does. The same work and the same
 * round trips as every lock's critical section, and none of a lock's: a lock's purchases per second
 * as a fraction of this is what its locking costs. Not a lock: it excludes only buyers of this one
 * process, and only in a benchmark.
 */
export function serialCeiling(): UnitLock {
  let turn: Promise<void> = Promise.resolve();
  return {
    async withLock(_resource, _options, critical) {
      const mine = turn;
      let next!: () => void;
      turn = new Promise<void>((resolve) => (next = resolve));
      await mine;
      try {
        // No lock, nothing to take away: the signal every lock-free holder gets (a new
        // AbortController per buyer cost the ceiling ~3 µs a purchase that no line pays).
        return await critical({ signal: NEVER_ABORTED, writeSent: next });
      } finally {
        next();
      }
    },
  };
}
