import type { Cluster, Redis } from "ioredis";
import { redisScript, runScript } from "../redis-script";

/**
 * Lua scripts of the Redis lock strategies, owned here and run through the ground floor's one
 * helper (EVALSHA, EVAL on NOSCRIPT). Each runs atomically on one node.
 */

/** Take the lock if free; otherwise report how long the holder still has. */
const ACQUIRE_TOKEN_LOCK = redisScript(`
-- KEYS[1] lock key; ARGV[1] this holder's random token; ARGV[2] TTL in ms
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return -3                          -- acquired (distinct from any PTTL answer)
end
return redis.call('PTTL', KEYS[1])   -- holder's remaining ms; -1 when it never expires
`, 1);

/** Delete the lock only if it still carries our token, and wake the waiters. */
const RELEASE_TOKEN_LOCK = redisScript(`
-- KEYS[1] lock key; ARGV[1] our token; ARGV[2] release channel
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('PUBLISH', ARGV[2], '1')
  return 1                           -- released our own lock
end
return 0                             -- expired, or someone else holds it now: leave it alone
`, 1);

/** Watchdog renewal: extend the lock only while it still carries our token. */
const RENEW_TOKEN_LOCK = redisScript(`
-- KEYS[1] lock key; ARGV[1] our token; ARGV[2] TTL in ms
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])   -- 1: renewed
end
return 0                                            -- lost: stop before writing
`, 1);

/** Take the lock and a fencing token (a counter that only goes up) in one step. */
const ACQUIRE_FENCED_LOCK = redisScript(`
-- KEYS[1] lock key; KEYS[2] fencing counter; ARGV[1] token; ARGV[2] TTL in ms
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return redis.call('INCR', KEYS[2])                -- > 0: acquired, with this fencing token
end
return -10 - redis.call('PTTL', KEYS[1])            -- <= -9: busy; -10 - answer = holder's PTTL
`, 2);

/**
 * Reentrant lock (as Redisson does): a hash {token: hold count}. The holder may take it again;
 * each release counts down, the last one deletes it and wakes the waiters.
 */
const ACQUIRE_REENTRANT_LOCK = redisScript(`
-- KEYS[1] lock key (hash); ARGV[1] token; ARGV[2] TTL in ms
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then
  redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return -3                                         -- acquired (again)
end
return redis.call('PTTL', KEYS[1])
`, 1);

const RELEASE_REENTRANT_LOCK = redisScript(`
-- KEYS[1] lock key (hash); ARGV[1] token; ARGV[2] release channel; ARGV[3] TTL in ms
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then
  return 0                                          -- not ours any more
end
if redis.call('HINCRBY', KEYS[1], ARGV[1], -1) > 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])           -- still held by an outer call
  return 1
end
redis.call('DEL', KEYS[1])
redis.call('PUBLISH', ARGV[2], '1')
return 1
`, 1);

export interface LockScripts {
  acquireTokenLock(key: string, token: string, ttlMs: number): Promise<number>;
  releaseTokenLock(key: string, token: string, channel: string): Promise<number>;
  renewTokenLock(key: string, token: string, ttlMs: number): Promise<number>;
  acquireFencedLock(key: string, counterKey: string, token: string, ttlMs: number): Promise<number>;
  acquireReentrantLock(key: string, token: string, ttlMs: number): Promise<number>;
  releaseReentrantLock(key: string, token: string, channel: string, ttlMs: number): Promise<number>;
}

const bound = new WeakMap<Redis | Cluster, LockScripts>();

/**
 * The lock scripts, run on `client` (any node, the Sentinel-managed primary, the Redis Cluster, a
 * test's own client). On a cluster only the one-key scripts run: a script's keys must share a slot.
 */
export function lockScripts(client: Redis | Cluster): LockScripts {
  let scripts = bound.get(client);
  if (!scripts) {
    const run = (script: Parameters<typeof runScript>[1], keys: string[], args: (string | number)[]) => runScript<number>(client, script, keys, args);
    scripts = {
      acquireTokenLock: (key, token, ttlMs) => run(ACQUIRE_TOKEN_LOCK, [key], [token, ttlMs]),
      releaseTokenLock: (key, token, channel) => run(RELEASE_TOKEN_LOCK, [key], [token, channel]),
      renewTokenLock: (key, token, ttlMs) => run(RENEW_TOKEN_LOCK, [key], [token, ttlMs]),
      acquireFencedLock: (key, counterKey, token, ttlMs) => run(ACQUIRE_FENCED_LOCK, [key, counterKey], [token, ttlMs]),
      acquireReentrantLock: (key, token, ttlMs) => run(ACQUIRE_REENTRANT_LOCK, [key], [token, ttlMs]),
      releaseReentrantLock: (key, token, channel, ttlMs) => run(RELEASE_REENTRANT_LOCK, [key], [token, channel, ttlMs]),
    };
    bound.set(client, scripts);
  }
  return scripts;
}

export const ACQUIRED = -3;
