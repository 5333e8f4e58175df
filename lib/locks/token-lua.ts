import { randomUUID } from "node:crypto";
import { getRedis } from "../redis";
import { contend } from "./contend";
import { withQueuedLock } from "./queued-lock";
import { releaseChannel } from "./release-signal";
import { ACQUIRED, lockScripts } from "./scripts";
import type { LockStrategy } from "./types";

/**
 * `SET key token NX PX ttl` with a random token per holder; release is an atomic Lua
 * compare-and-delete, so a holder never deletes someone else's lock. Safe while the work fits in
 * the TTL; when it does not, the lock expires mid-work and a second holder enters (oversell).
 */
export const tokenLua: LockStrategy = {
  name: "token-lua",
  safe: true,
  withLock(resource, options, critical) {
    const redis = lockScripts(getRedis());
    const key = `lock:${resource}`;
    const token = randomUUID();
    return withQueuedLock(resource, options, {
      async acquire(deadline) {
        await contend({ resource, deadline, waitTimeoutMs: options.waitTimeoutMs }, async () => {
          const answer = await redis.acquireTokenLock(key, token, options.ttlMs);
          if (answer === ACQUIRED) return { acquired: true };
          return { acquired: false, holderTtlMs: answer < 0 ? Infinity : answer };
        });
        return options.ttlMs;
      },
      release: async () => (await redis.releaseTokenLock(key, token, releaseChannel(resource))) === 1,
    }, critical);
  },
};
