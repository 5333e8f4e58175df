import { randomUUID } from "node:crypto";
import type Redis from "ioredis";
import { LockBusyError, type LockStrategy } from "../../lib/locks/types";
import { lockKey } from "../../lib/sale/keys";
import { getRedis } from "../../lib/redis";
import type { UnitLock } from "../../lib/purchase/purchase";

/**
 * Benchmark peer, not a strategy: the lock of the source articles. `SET key token NX PX ttl`;
 * on failure sleep a fixed interval and try again until the wait timeout; release with a Lua
 * compare-and-delete. No queue and no wake-up: every waiter polls Redis on its own clock.
 */
const RELEASE_IF_OURS = `
-- KEYS[1] lock key; ARGV[1] our token
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])  -- ours: delete it
end
return 0                             -- expired or someone else's: leave it
`;

const registered = new WeakSet<Redis>();

function releaseIfOurs(redis: Redis, key: string, token: string): Promise<number> {
  if (!registered.has(redis)) {
    redis.defineCommand("benchReleaseIfOurs", { numberOfKeys: 1, lua: RELEASE_IF_OURS });
    registered.add(redis);
  }
  return (redis as unknown as { benchReleaseIfOurs(key: string, token: string): Promise<number> }).benchReleaseIfOurs(key, token);
}

export function fixedSleepPeer(pollIntervalMs: number): UnitLock {
  const withLock: LockStrategy["withLock"] = async (resource, options, critical) => {
    const redis = getRedis();
    const key = lockKey(resource);
    const token = randomUUID();
    const deadline = Date.now() + options.waitTimeoutMs;
    while ((await redis.set(key, token, "PX", options.ttlMs, "NX")) !== "OK") {
      if (Date.now() + pollIntervalMs > deadline) throw new LockBusyError(resource, options.waitTimeoutMs);
      await new Promise((resolve) => setTimeout(resolve, pollIntervalMs));
    }
    try {
      return await critical({ signal: new AbortController().signal });
    } finally {
      await releaseIfOurs(redis, key, token).catch(() => 0);
    }
  };
  return { withLock };
}
