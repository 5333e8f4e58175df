import type Redis from "ioredis";
import { IoredisAdapter, LockAcquisitionError, createRedlock, type RedisAdapter } from "redlock-universal";
import type { LockClients } from "../clients";
import { driftMs } from "../lease";
import { createPeerStrategy, lostUnlessDown, majorityAnswers, monotonicOf, redisMajorityReady, retriesFor, type PeerLibrary } from "../peer-lock";

/**
 * Lab variant, unsafe: redlock-universal's Redlock (`redlock-universal@0.8.5`) over the five Redis
 * nodes and connections `redlock` uses, as its README shows: an `IoredisAdapter` per client (kept,
 * so each caches its scripts' SHA1s), `createRedlock({ adapters, key, ttl })` per use,
 * `acquire()`, `release(handle)` in `finally`. Its package asks for Node ≥ 22 (`engines`); the app
 * runs Node 20, and it loads and runs there.
 *
 * Its defaults: ttl 30 s, retryAttempts 3, retryDelay 200 ms with no jitter (so contenders that
 * failed together retry together), quorum a majority, clockDriftFactor 0.01, a 5 s timeout per
 * command. The one setting tuned: retryAttempts = ceil(waitTimeoutMs / retryDelay), so its tries
 * spend the buyer's wait; a wait of 0 is one try. TTL → `ttl`.
 *
 * How it fails: no fencing token, no lease check (its `using()` would renew the lock while the
 * routine runs, and abort a signal the routine may check; not used here: acquire/release as in
 * its manual-control example), so a holder paused past the TTL — or whose majority a clock jump or
 * a restarted node without persistence took away — writes after the next holder: two holders, a
 * unit sold twice. A try waits for every node (no per-node timeout) and fails when it took longer
 * than the TTL minus the drift. The handle's `acquiredAt` is stamped after the votes came in, so
 * the validity counted from it (below) is late by the try's own duration. Its release answers
 * whether a majority deleted the lock (a compare-and-delete), and false also when the nodes did
 * not answer; a failed acquire's LockAcquisitionError does not say whether the lock was held or
 * the nodes were down.
 *
 * Busy: its LockAcquisitionError (no majority within the tries); unavailable when fewer than a
 * majority of nodes then answer a PING, or on any other error.
 */
const LIBRARY = "redlock-universal@0.8.5";
/** Its default delay between a Redlock's tries: DEFAULTS.RETRY_DELAY (100 ms) × 2 for a distributed lock. */
const RETRY_DELAY_MS = 200;
/** Its default clockDriftFactor. */
const DRIFT_FACTOR = 0.01;

/** One adapter per client, as the README builds them: each keeps the SHA1s of the scripts it loaded. */
const adapters = new WeakMap<Redis, RedisAdapter>();
function adapterOf(node: Redis): RedisAdapter {
  let adapter = adapters.get(node);
  if (!adapter) adapters.set(node, (adapter = new IoredisAdapter(node)));
  return adapter;
}

export function createPeerRedlockUniversal(clients: LockClients) {
  const peer: PeerLibrary = {
    name: "peer-redlock-universal",
    safe: false,
    library: LIBRARY,
    readiness: () => [redisMajorityReady(clients.redisNodes)],
    async acquire(key, options) {
      const lock = createRedlock({
        adapters: clients.redisNodes().map(adapterOf),
        key,
        ttl: options.ttlMs,
        retryAttempts: retriesFor(options.waitTimeoutMs, RETRY_DELAY_MS),
      });
      const handle = await lock.acquire();
      return {
        // Redlock's validity, TTL minus drift (Math.floor(ttl × 0.01) + 2 in the library; ours rounds), from acquiredAt.
        validUntil: monotonicOf(handle.acquiredAt) + handle.ttl - driftMs(handle.ttl, DRIFT_FACTOR),
        release: async () => (await lock.release(handle)) || lostUnlessDown(peer),
      };
    },
    isBusy: (error) => error instanceof LockAcquisitionError,
    serversAnswer: majorityAnswers(clients.redisNodes),
  };
  return createPeerStrategy(peer);
}
