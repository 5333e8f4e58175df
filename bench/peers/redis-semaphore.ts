import { Mutex, RedlockMutex, TimeoutError, type LockOptions as SemaphoreOptions } from "redis-semaphore";
import { getRedis, getRedisNodes } from "../../lib/redis";
import type { UnitLock } from "../../lib/purchase/purchase";
import { peerLock } from "./peer-lock";

/**
 * Benchmark peers, not strategies: redis-semaphore's `Mutex` on Redis node 1 (the node and
 * connection `token-lua` uses) and its `RedlockMutex` on all five nodes. A waiter polls with
 * `SET NX PX` every `retryInterval` until `acquireTimeout`: no queue, no release signal.
 */
export type RedisSemaphoreSettings = Pick<SemaphoreOptions, "acquireTimeout" | "retryInterval">;

/** redis-semaphore's defaults: a try every 10 ms for up to 10 s. */
export const REDIS_SEMAPHORE_DEFAULT: RedisSemaphoreSettings = Object.freeze({});

interface SemaphoreLock {
  acquire(): Promise<void>;
  release(): Promise<void>;
}

function semaphorePeer(name: string, create: (key: string, options: SemaphoreOptions) => SemaphoreLock, settings: RedisSemaphoreSettings): UnitLock {
  return peerLock({
    name,
    async acquire(key, options) {
      // The library's default onLockLost throws from a timer, which would end the whole benchmark;
      // its refresh runs at 80 % of the TTL, far longer than any purchase here holds the lock.
      const lock = create(key, { ...settings, lockTimeout: options.ttlMs, onLockLost: () => {} });
      await lock.acquire();
      return lock;
    },
    isOutOfRetries: (error) => error instanceof TimeoutError,
  });
}

export const redisSemaphoreMutexPeer = (settings: RedisSemaphoreSettings) =>
  semaphorePeer("redis-semaphore Mutex", (key, options) => new Mutex(getRedis(), key, options), settings);

export const redisSemaphoreRedlockPeer = (settings: RedisSemaphoreSettings) =>
  semaphorePeer("redis-semaphore RedlockMutex", (key, options) => new RedlockMutex(getRedisNodes(), key, options), settings);
