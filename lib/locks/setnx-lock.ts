import type { LockClients } from "./clients";
import { contend } from "./contend";
import { releaseChannel } from "./release-signal";
import { holdSharedLock } from "./shared-lock";
import { lockKey } from "./keys";
import type { LockStrategy } from "./types";

/**
 * The naive lock the articles warn about, exactly in their shape: every buyer runs its own
 * `SETNX` (no local line, no hand-off), then `PEXPIRE` as a second command, works, and unlocks
 * with a plain `DEL`. A waiter sleeps until a release message or the holder's TTL, then tries
 * again. `expire: false` is the lab's even more naive variant with no expiry at all.
 */
export function createSetnxLock(clients: LockClients, name: string, expire: boolean): LockStrategy {
  return {
    name,
    safe: false,
    lab: !expire,
    withLock(resource, options, critical) {
      const key = lockKey(resource);
      return holdSharedLock(options, {
        kind: name,
        // The naive lock checks nothing before writing: that is the pitfall it shows.
        checked: false,
        async acquire(deadline) {
          const redis = clients.redis();
          await contend({ resource, deadline, waitTimeoutMs: options.waitTimeoutMs, releases: clients.releases }, async () => {
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
          const redis = clients.redis();
          await redis.del(key);
          await redis.publish(releaseChannel(resource), "1");
          return true;
        },
      }, critical);
    },
  };
}
