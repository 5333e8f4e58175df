import { RedlockMutex } from "redis-semaphore";
import type { LockClients } from "../clients";
import { createPeerStrategy, majorityOf, redisMajorityReady } from "../peer-lock";
import { semaphorePeer } from "./peer-semaphore-mutex";

/**
 * Lab variant, unsafe: redis-semaphore's `RedlockMutex` (`redis-semaphore@5.8.0`) over the five
 * Redis nodes and connections `redlock` uses, as its README shows: `new RedlockMutex(clients, key,
 * options)` per use, `acquire()`, `release()` in `finally`. Its key is `mutex:` + ours.
 *
 * Its defaults and the one setting tuned are the Mutex's (./peer-semaphore-mutex.ts): a try every
 * 10 ms for up to acquireTimeout = waitTimeoutMs (`acquireAttemptsLimit: 1` for a wait of 0), the
 * lock renewed every 0.8 × TTL while held, onLockLost replaced because its default throws.
 *
 * How it fails: no fencing token, no lease check: a holder paused past the TTL writes after the
 * next holder before its refresh finds the lock gone, as the Mutex; a clock jump or a node
 * restarted without persistence can hand the majority to a second buyer. Each try is `SET NX PX`
 * on every node, waiting for all of them (no per-node timeout; an error counts as a no), held when
 * round((n + 1) / 2) said yes — with no validity check at all: no drift allowance and no
 * "TTL minus the time the try took", so a try slowed down by one node hands out a lock with less
 * time left than its holder believes. A refresh that keeps the majority sets the lock again on the
 * nodes that lost it.
 *
 * Busy: its TimeoutError, unless fewer than a majority of nodes then answer a PING (it counts a
 * node that errs as a no vote and says nothing more, so a stopped majority ends as a timeout too).
 */
export const createPeerSemaphoreRedlockMutex = (clients: LockClients) =>
  createPeerStrategy({
    ...semaphorePeer("peer-semaphore-redlock-mutex", (key, options) => new RedlockMutex([...clients.redisNodes()], key, options), clients.redisNodes, majorityOf),
    readiness: () => [redisMajorityReady(clients.redisNodes)],
  });
