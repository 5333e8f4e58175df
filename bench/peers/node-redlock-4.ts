import Redlock from "redlock4";
import { getRedisNodes } from "../../lib/redis";
import type { UnitLock } from "../../lib/purchase/purchase";
import { peerLock } from "./peer-lock";

/**
 * Benchmark peer, not a strategy: node-redlock 4 (`redlock@4.2.0`, the last release that is
 * not a beta) over the same five Redis nodes and connections as the project's `redlock`. Like 5, it
 * retries on its own timer; a failed attempt first releases its votes everywhere and waits for that.
 */
export function nodeRedlock4Peer(options: Redlock.Options): UnitLock {
  const redlock = new Redlock(getRedisNodes(), options);
  return peerLock({
    name: "node-redlock 4",
    async acquire(key, lockOptions) {
      const lock = await redlock.lock(key, lockOptions.ttlMs);
      return { release: () => lock.unlock() };
    },
    isOutOfRetries: (error) => error instanceof Redlock.LockError,
  });
}

/** node-redlock 4's defaults: 10 retries, 200 ms apart with ±100 ms jitter (≈ 2 s of trying). */
export const NODE_REDLOCK_4_DEFAULT: Redlock.Options = Object.freeze({});
