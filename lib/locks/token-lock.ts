import { lockKey } from "../sale/keys";
import { randomUUID } from "node:crypto";
import { getRedis, getWatchConnection } from "../redis";
import { contend } from "./contend";
import { leaseEnd, now } from "./lease";
import { withQueuedLock, type SharedLock } from "./queued-lock";
import { releaseChannel } from "./release-signal";
import { ACQUIRED, lockScripts } from "./scripts";
import type { LockOptions, LockStrategy, StrategyName } from "./types";

/**
 * `SET key token NX PX ttl` with a random token per holder; release is an atomic Lua
 * compare-and-delete, so a holder never deletes someone else's lock. Safe while the work fits in
 * the TTL; when it does not, the lock expires mid-work and a second holder enters (oversell).
 */
export const tokenLua: LockStrategy = createTokenLock({ name: "token-lua", safe: true, unlock: "lua" });

export interface TokenLockVariant {
  readonly name: StrategyName;
  readonly safe: boolean;
  /** `lua`: atomic compare-and-delete; `get-del`: GET, compare, DEL as separate commands; `watch`: WATCH/GET/MULTI/DEL/EXEC. */
  readonly unlock: "lua" | "get-del" | "watch";
  /** Renew every TTL/3 while the holder works, and make it stop before writing if a renewal fails. */
  readonly watchdog?: boolean;
  /** Hand out a fencing token (a Redis counter) with every acquisition. */
  readonly fencing?: boolean;
}

/** The token lock and its lab variants (token-get-del, token-watch, token-watchdog, token-fencing). */
export function createTokenLock(variant: TokenLockVariant): LockStrategy {
  return {
    name: variant.name,
    safe: variant.safe,
    withLock(resource, options, critical) {
      return withQueuedLock(resource, options, tokenLock(resource, options, variant), critical);
    },
  };
}

function tokenLock(resource: string, options: LockOptions, variant: TokenLockVariant): SharedLock {
  const redis = lockScripts(getRedis());
  const key = lockKey(resource);
  const token = randomUUID();
  const channel = releaseChannel(resource);
  let fencingToken: number | undefined;
  return {
    kind: `${variant.name}:${options.ttlMs}:${options.epoch ?? 0}`,
    // The lab's unlock variants must really unlock every time for their race to show, and every
    // fenced write must carry a token of its own acquisition.
    handOn: variant.unlock === "lua" && !variant.fencing && !variant.watchdog,
    async acquire(deadline) {
      let sentAt = now();
      await contend({ resource, deadline, waitTimeoutMs: options.waitTimeoutMs }, async () => {
        sentAt = now();
        if (variant.fencing) {
          const answer = await redis.acquireFencedLock(key, `fence:${resource}`, token, options.ttlMs);
          if (answer > 0) {
            fencingToken = answer;
            return { acquired: true };
          }
          const holderTtlMs = -10 - answer;
          return { acquired: false, holderTtlMs: holderTtlMs < 0 ? Infinity : holderTtlMs };
        }
        const answer = await redis.acquireTokenLock(key, token, options.ttlMs);
        if (answer === ACQUIRED) return { acquired: true };
        return { acquired: false, holderTtlMs: answer < 0 ? Infinity : answer };
      });
      return leaseEnd(sentAt, options.ttlMs);
    },
    release: () => {
      if (variant.unlock === "get-del") return releaseGetThenDel(key, token, channel, options);
      if (variant.unlock === "watch") return releaseWatched(key, token, channel, options);
      return redis.releaseTokenLock(key, token, channel).then((released) => released === 1);
    },
    ...(variant.watchdog && {
      renew: async () => {
        await options.onStep?.("before-renew");
        return (await redis.renewTokenLock(key, token, options.ttlMs)) === 1;
      },
    }),
    ...(variant.fencing && { fencingToken: () => fencingToken }),
  };
}

/** Unsafe on purpose: between the GET and the DEL the lock can expire and be taken by another. */
async function releaseGetThenDel(key: string, token: string, channel: string, options: LockOptions): Promise<boolean> {
  const redis = getRedis();
  if ((await redis.get(key)) !== token) return false;
  await options.onStep?.("before-release-del");
  await redis.del(key);
  await redis.publish(channel, "1");
  return true;
}

/** WATCH makes the DEL conditional: EXEC does nothing if the lock changed after the GET. */
async function releaseWatched(key: string, token: string, channel: string, options: LockOptions): Promise<boolean> {
  // WATCH belongs to a connection; this one is used for nothing else.
  const connection = getWatchConnection();
  await connection.watch(key);
  if ((await connection.get(key)) !== token) {
    await connection.unwatch();
    return false;
  }
  await options.onStep?.("before-release-del");
  const result = await connection.multi().del(key).publish(channel, "1").exec();
  return result !== null;
}
