import Redlock, { ExecutionError } from "redlock";
import type { LockClients } from "../clients";
import { createPeerStrategy, lostUnlessDown, majorityAnswers, monotonicOf, redisMajorityReady, retriesFor, type PeerLibrary } from "../peer-lock";

/**
 * Lab variant, unsafe: node-redlock 5 (`redlock@5.0.0-beta.2`; npm's `latest` tag is still 4.2.0)
 * over the five Redis nodes and connections `redlock` uses, as its README shows: one Redlock over
 * the clients, `acquire([key], ttl)`, `lock.release()` in `finally`.
 *
 * Its defaults: retryCount 10, retryDelay 200 ms, retryJitter ±100 ms (about 2 s of trying),
 * driftFactor 0.01. The one setting tuned, per call: retryCount = ceil(waitTimeoutMs / retryDelay),
 * so its tries spend the buyer's wait on average (between about half and 1.5× of it, with the
 * jitter); a wait of 0 is one try. TTL → the lock's `duration`.
 *
 * How it fails: the lock carries no fencing token and the holder checks no lease, so a holder
 * paused past the TTL (or whose majority a clock jump or a restarted node without persistence
 * took away) writes after the next holder: two holders, a unit sold twice. Its `expiration`
 * is counted from the start of the first try, not the one that won, so after a long wait it may
 * hand out a lock it already reports expired (the holder's signal aborts at once). An attempt is
 * decided as soon as a majority has answered, without a per-node timeout. Its release goes
 * through the same retry loop: one that finds the lock expired keeps trying for its default ~2 s
 * before it throws.
 *
 * Busy: its ExecutionError (no majority within the retries); unavailable when fewer than a
 * majority of nodes then answer a PING, or on any other error.
 */
const LIBRARY = "redlock@5.0.0-beta.2";

/** node-redlock 5's API, which its fork @sesamecare-oss/redlock keeps: one Redlock over the clients, `acquire([key], ttl)`. */
interface Redlock5Like {
  readonly settings: { readonly retryDelay: number };
  acquire(resources: string[], duration: number, settings: { retryCount: number }): Promise<{ readonly expiration: number; release(): Promise<unknown> }>;
}

/**
 * A peer of node-redlock 5's shape (it, or a fork keeping its API): the Redlock built on first use
 * (building a strategy opens no connection), retries spending the buyer's wait, and its
 * ExecutionError as busy or, on release, a lock already lost unless the nodes are down.
 */
export function redlock5Peer(
  clients: LockClients,
  name: PeerLibrary["name"],
  library: string,
  create: (nodes: ReturnType<LockClients["redisNodes"]>) => Redlock5Like,
  isExecutionError: (error: unknown) => boolean,
  beforeAcquire?: () => Promise<unknown>,
): PeerLibrary {
  let redlock: Redlock5Like | undefined;
  const redlockOf = () => (redlock ??= create(clients.redisNodes()));
  const peer: PeerLibrary = {
    name,
    safe: false,
    library,
    readiness: () => [redisMajorityReady(clients.redisNodes)],
    async acquire(key, options) {
      await beforeAcquire?.();
      const lib = redlockOf();
      const lock = await lib.acquire([key], options.ttlMs, { retryCount: retriesFor(options.waitTimeoutMs, lib.settings.retryDelay) });
      return {
        validUntil: monotonicOf(lock.expiration),
        release: () => lock.release().then(() => true, async (error: unknown) => {
          if (isExecutionError(error)) return lostUnlessDown(peer);
          throw error;
        }),
      };
    },
    isBusy: isExecutionError,
    serversAnswer: majorityAnswers(clients.redisNodes),
  };
  return peer;
}

export function createPeerRedlock5(clients: LockClients) {
  return createPeerStrategy(redlock5Peer(clients, "peer-redlock5", LIBRARY, (nodes) => new Redlock([...nodes]),
    (error) => error instanceof ExecutionError));
}
