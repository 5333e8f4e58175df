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

interface LockScripts {
  acquireTokenLock(key: string, token: string, ttlMs: number): Promise<number>;
  releaseTokenLock(key: string, token: string, channel: string): Promise<number>;
}

const registered = new WeakSet<Redis>();

export function lockScripts(client: Redis): LockScripts {
  if (!registered.has(client)) {
    client.defineCommand("acquireTokenLock", { numberOfKeys: 1, lua: ACQUIRE_TOKEN_LOCK });
    client.defineCommand("releaseTokenLock", { numberOfKeys: 1, lua: RELEASE_TOKEN_LOCK });
    registered.add(client);
  }
  return client as unknown as LockScripts;
}

export const ACQUIRED = -3;
