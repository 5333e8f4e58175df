import { lockKey } from "../sale/keys";
import { getRedis } from "../redis";
import { contend } from "./contend";
import { withQueuedLock } from "./queued-lock";
import { releaseChannel } from "./release-signal";
import type { LockStrategy } from "./types";

/**
 * The naive lock the articles warn about, unsafe on purpose: `SETNX` then `PEXPIRE` as two
 * commands (a crash between them leaves a lock that never expires: deadlock), and a plain `DEL`
 * to unlock (after the TTL ran out mid-work, it deletes the next buyer's lock: oversell).
 * `expire: false` is the lab's even more naive variant with no expiry at all.
 */
export function createSetnx(name: "setnx" | "setnx-no-expiry", expire: boolean): LockStrategy {
  return {
    name,
    safe: false,
    withLock(resource, options, critical) {
      const redis = getRedis();
      const key = lockKey(resource);
      return withQueuedLock(resource, options, {
        kind: `${name}:${options.ttlMs}:${options.epoch ?? 0}`,
        // The naive lock checks nothing before writing: that is the pitfall it shows.
        checked: false,
        async acquire(deadline) {
          await contend({ resource, deadline, waitTimeoutMs: options.waitTimeoutMs }, async () => {
            if ((await redis.setnx(key, "locked")) === 1) {
              if (expire) {
                await options.onStep?.("after-setnx");
                await redis.pexpire(key, options.ttlMs);
              }
              return { acquired: true };
            }
            const holderTtlMs = await redis.pttl(key);
            return { acquired: false, holderTtlMs: holderTtlMs === -1 ? Infinity : Math.max(holderTtlMs, 0) };
          });
          return expire ? performance.now() + options.ttlMs : Infinity;
        },
        async release() {
          await redis.del(key);
          await redis.publish(releaseChannel(resource), "1");
          return true;
        },
      }, critical);
    },
  };
}

export const setnx = createSetnx("setnx", true);
