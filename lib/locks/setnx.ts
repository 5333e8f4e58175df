import { getRedis } from "../redis";
import { contend } from "./contend";
import { withQueuedLock } from "./queued-lock";
import { releaseChannel } from "./release-signal";
import type { LockStrategy } from "./types";

/**
 * The naive lock the articles warn about, unsafe on purpose: `SETNX` then `PEXPIRE` as two
 * commands (a crash between them leaves a lock that never expires: deadlock), and a plain `DEL`
 * to unlock (after the TTL ran out mid-work, it deletes the next buyer's lock: oversell).
 */
export const setnx: LockStrategy = {
  name: "setnx",
  safe: false,
  withLock(resource, options, critical) {
    const redis = getRedis();
    const key = `lock:${resource}`;
    return withQueuedLock(resource, options, {
      async acquire(deadline) {
        await contend({ resource, deadline, waitTimeoutMs: options.waitTimeoutMs }, async () => {
          if ((await redis.setnx(key, "locked")) === 1) {
            await redis.pexpire(key, options.ttlMs);
            return { acquired: true };
          }
          const holderTtlMs = await redis.pttl(key);
          return { acquired: false, holderTtlMs: holderTtlMs === -1 ? Infinity : Math.max(holderTtlMs, 0) };
        });
        return options.ttlMs;
      },
      async release() {
        await redis.del(key);
        await redis.publish(releaseChannel(resource), "1");
        return true;
      },
    }, critical);
  },
};
