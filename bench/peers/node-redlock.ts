import Redlock, { ExecutionError, type Settings } from "redlock";
import { LockBusyError, LockUnavailableError, type LockStrategy } from "../../lib/locks/types";
import { lockKey } from "../../lib/sale/keys";
import { getRedisNodes } from "../../lib/redis";
import type { UnitLock } from "../../lib/purchase/purchase";

/**
 * Benchmark peer, not a strategy: node-redlock (`redlock@5.0.0-beta.2`) over the same five Redis
 * nodes and connections as the project's `redlock`, around the same critical section. Every buyer
 * calls `acquire` itself and retries on node-redlock's own timer (no queue, no release signal);
 * running out of retries is reported as busy, as the project's strategies do at their wait timeout.
 */
export function nodeRedlockPeer(settings: Partial<Settings>): UnitLock {
  const redlock = new Redlock(getRedisNodes(), settings);
  // Failed attempts are part of the contest; node-redlock reports them as events nobody needs here.
  redlock.on("error", () => {});
  const withLock: LockStrategy["withLock"] = async (resource, options, critical) => {
    let lock;
    try {
      lock = await redlock.acquire([lockKey(resource)], options.ttlMs);
    } catch (error) {
      // Out of retries without a quorum: the lock stayed taken for the whole retry budget.
      if (error instanceof ExecutionError) throw new LockBusyError(resource, options.waitTimeoutMs);
      throw new LockUnavailableError(`node-redlock: ${(error as Error).message}`, { cause: error });
    }
    try {
      return await critical({ signal: new AbortController().signal });
    } finally {
      // The lock expires by its TTL anyway; a failed release must not fail a finished purchase.
      await lock.release().catch(() => {});
    }
  };
  return { withLock };
}

/** node-redlock's defaults: 10 retries, 200 ms apart with ±100 ms jitter (≈ 2 s of trying). */
export const NODE_REDLOCK_DEFAULT: Partial<Settings> = Object.freeze({});
