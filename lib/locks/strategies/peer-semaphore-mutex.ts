import type Redis from "ioredis";
import { Mutex, TimeoutError, type LockOptions as SemaphoreOptions } from "redis-semaphore";
import type { LockClients } from "../clients";
import { answeringNodes, createPeerStrategy, type PeerLibrary } from "../peer-lock";
import type { LockOptions } from "../types";

/**
 * Lab variant, unsafe: redis-semaphore's `Mutex` (`redis-semaphore@5.8.0`) on Redis node 1, the
 * node and connection `token-lua` uses, as its README shows: `new Mutex(client, key, options)` per
 * use, `acquire()`, `release()` in `finally`. Its key is `mutex:` + ours.
 *
 * Its defaults: lockTimeout 10 s, acquireTimeout 10 s, retryInterval 10 ms (a waiter polls
 * `SET NX PX` every 10 ms: no queue, no release signal), acquireAttemptsLimit ∞, refreshInterval
 * 0.8 × lockTimeout (a watchdog: the lock is renewed while held), and an onLockLost that throws.
 * The one setting tuned: acquireTimeout = waitTimeoutMs, a deadline it keeps (it tries while
 * now < start + acquireTimeout). A wait of 0 is `acquireAttemptsLimit: 1`, its README's "optional
 * lock": an acquireTimeout of 0 would give up before its first try. TTL → lockTimeout (and so the
 * refresh every 0.8 × TTL). onLockLost is replaced, not tuned: the default throws from the refresh
 * timer, an uncaught exception (`next start` logs it; any other process ends); here it aborts the
 * holder's signal, as its README's "lost lock handling" example logs instead.
 *
 * How it fails: one node, no fencing token, no lease check. A holder paused past the TTL stops its
 * refresh timer too: the key expires, the next buyer takes it, and the paused holder writes before
 * its next refresh finds the lock gone and calls onLockLost: two holders, a unit sold twice. Node 1
 * restarted without persistence forgets the lock. Its release deletes only its own key (a Lua
 * compare-and-delete) but answers nothing: only `isAcquired`, cleared by a failed refresh, tells.
 *
 * Busy: its TimeoutError, unless node 1 does not answer a PING then; a Redis error during acquire
 * reaches us as it is (the Mutex lets it through): unavailable.
 */
export const REDIS_SEMAPHORE = "redis-semaphore@5.8.0";

interface SemaphoreLock {
  readonly isAcquired: boolean;
  acquire(): Promise<void>;
  release(): Promise<void>;
}

/** Our TTL and wait as redis-semaphore's options (see the header). */
export function semaphoreOptions(options: LockOptions, lost: () => void): SemaphoreOptions {
  return {
    lockTimeout: options.ttlMs,
    ...(options.waitTimeoutMs > 0 ? { acquireTimeout: options.waitTimeoutMs } : { acquireAttemptsLimit: 1 }),
    onLockLost: lost,
  };
}

/** A redis-semaphore lock as a peer: `create` builds one lock per use, on `nodes`, of which `needed` must answer. */
export function semaphorePeer(
  name: PeerLibrary["name"],
  create: (key: string, options: SemaphoreOptions) => SemaphoreLock,
  nodes: () => readonly Redis[],
  needed: (nodes: readonly Redis[]) => number,
): PeerLibrary {
  return {
    name,
    safe: false,
    library: REDIS_SEMAPHORE,
    async acquire(key, options, lost) {
      const lock = create(key, semaphoreOptions(options, lost));
      await lock.acquire();
      return {
        // Renewed by its own refresh timer while held: no end it tells its holder, only onLockLost.
        validUntil: Infinity,
        async release() {
          const held = lock.isAcquired;
          await lock.release();
          return held;
        },
      };
    },
    isBusy: (error) => error instanceof TimeoutError,
    serversAnswer: async () => {
      const all = nodes();
      return (await answeringNodes(all)) >= needed(all);
    },
  };
}

export const createPeerSemaphoreMutex = (clients: LockClients) =>
  createPeerStrategy(semaphorePeer("peer-semaphore-mutex", (key, options) => new Mutex(clients.redis(), key, options), () => [clients.redis()], () => 1));
