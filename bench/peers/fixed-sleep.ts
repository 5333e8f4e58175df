import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type Redis from "ioredis";
import { getRedis } from "../../lib/redis";
import type { UnitLock } from "../../lib/purchase/purchase";
import { peerLock } from "./peer-lock";

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

type WithRelease = Redis & { benchReleaseIfOurs(key: string, token: string): Promise<number> };

/** The wait timeout passed with the lock still taken. */
class PollTimeoutError extends Error {
  override name = "PollTimeoutError";
}

export function fixedSleepPeer(pollIntervalMs: number): UnitLock {
  const redis = getRedis();
  return peerLock({
    name: `fixed-sleep poll ${pollIntervalMs} ms`,
    prepare() {
      if (!("benchReleaseIfOurs" in redis)) redis.defineCommand("benchReleaseIfOurs", { numberOfKeys: 1, lua: RELEASE_IF_OURS });
    },
    async acquire(key, options) {
      const token = randomUUID();
      const deadline = Date.now() + options.waitTimeoutMs;
      while ((await redis.set(key, token, "PX", options.ttlMs, "NX")) !== "OK") {
        if (Date.now() + pollIntervalMs > deadline) throw new PollTimeoutError(`${key} still taken after ${options.waitTimeoutMs} ms`);
        await sleep(pollIntervalMs);
      }
      return { release: () => (redis as WithRelease).benchReleaseIfOurs(key, token) };
    },
    isOutOfRetries: (error) => error instanceof PollTimeoutError,
  });
}
