import type Redis from "ioredis";

/**
 * Lua scripts of the Redis lock strategies. Each runs atomically on one node; each is registered
 * once per client with `defineCommand`, so later calls send only its SHA.
 */

/** Take the lock if free; otherwise report how long the holder still has. */
export const ACQUIRE_TOKEN_LOCK = `
-- KEYS[1] lock key; ARGV[1] this holder's random token; ARGV[2] TTL in ms
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return -3                          -- acquired (distinct from any PTTL answer)
end
return redis.call('PTTL', KEYS[1])   -- holder's remaining ms; -1 when it never expires
`;

/** Delete the lock only if it still carries our token, and wake the waiters. */
export const RELEASE_TOKEN_LOCK = `
-- KEYS[1] lock key; ARGV[1] our token; ARGV[2] release channel
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('PUBLISH', ARGV[2], '1')
  return 1                           -- released our own lock
end
return 0                             -- expired, or someone else holds it now: leave it alone
`;

/** Watchdog renewal: extend the lock only while it still carries our token. */
export const RENEW_TOKEN_LOCK = `
-- KEYS[1] lock key; ARGV[1] our token; ARGV[2] TTL in ms
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])   -- 1: renewed
end
return 0                                            -- lost: stop before writing
`;

/** Take the lock and a fencing token (a counter that only goes up) in one step. */
export const ACQUIRE_FENCED_LOCK = `
-- KEYS[1] lock key; KEYS[2] fencing counter; ARGV[1] token; ARGV[2] TTL in ms
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return redis.call('INCR', KEYS[2])                -- > 0: acquired, with this fencing token
end
return -10 - redis.call('PTTL', KEYS[1])            -- <= -9: busy; -10 - answer = holder's PTTL
`;

/**
 * Reentrant lock (as Redisson does): a hash {token: hold count}. The holder may take it again;
 * each release counts down, the last one deletes it and wakes the waiters.
 */
export const ACQUIRE_REENTRANT_LOCK = `
-- KEYS[1] lock key (hash); ARGV[1] token; ARGV[2] TTL in ms
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then
  redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return -3                                         -- acquired (again)
end
return redis.call('PTTL', KEYS[1])
`;

export const RELEASE_REENTRANT_LOCK = `
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
`;

interface LockScripts {
  renewTokenLock(key: string, token: string, ttlMs: number): Promise<number>;
  acquireFencedLock(key: string, counterKey: string, token: string, ttlMs: number): Promise<number>;
  acquireReentrantLock(key: string, token: string, ttlMs: number): Promise<number>;
  releaseReentrantLock(key: string, token: string, channel: string, ttlMs: number): Promise<number>;
  acquireTokenLock(key: string, token: string, ttlMs: number): Promise<number>;
  releaseTokenLock(key: string, token: string, channel: string): Promise<number>;
}

const registered = new WeakSet<Redis>();

/**
 * Defines the lock scripts on a client. lib/redis.ts does it as each client is created: an
 * auto-pipeline copies the client's commands when it is opened, so a command defined while one is
 * pending would be missing from it (ioredis#1931: the pipeline's callbacks then throw and every
 * command in it hangs).
 */
export function defineLockScripts(client: Redis): void {
  if (registered.has(client)) return;
  client.defineCommand("acquireTokenLock", { numberOfKeys: 1, lua: ACQUIRE_TOKEN_LOCK });
  client.defineCommand("releaseTokenLock", { numberOfKeys: 1, lua: RELEASE_TOKEN_LOCK });
  client.defineCommand("renewTokenLock", { numberOfKeys: 1, lua: RENEW_TOKEN_LOCK });
  client.defineCommand("acquireFencedLock", { numberOfKeys: 2, lua: ACQUIRE_FENCED_LOCK });
  client.defineCommand("acquireReentrantLock", { numberOfKeys: 1, lua: ACQUIRE_REENTRANT_LOCK });
  client.defineCommand("releaseReentrantLock", { numberOfKeys: 1, lua: RELEASE_REENTRANT_LOCK });
  registered.add(client);
}

export function lockScripts(client: Redis): LockScripts {
  defineLockScripts(client);
  return client as unknown as LockScripts;
}

export const ACQUIRED = -3;
