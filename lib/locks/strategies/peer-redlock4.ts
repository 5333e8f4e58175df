import Redlock from "redlock4";
import type { LockClients } from "../clients";
import { createPeerStrategy, lostUnlessDown, majorityAnswers, monotonicOf, redisMajorityReady, retriesFor, type PeerLibrary } from "../peer-lock";

/**
 * Lab variant, unsafe: node-redlock 4 (`redlock@4.2.0`, installed as `redlock4`; still npm's
 * `latest` for `redlock`, the last release that is not a beta) over the five Redis nodes and
 * connections `redlock` uses, as its README shows: `new Redlock(clients, options)`,
 * `lock(key, ttl)`, `lock.unlock()` in `finally`.
 *
 * Its defaults: retryCount 10, retryDelay 200 ms, retryJitter ±100 ms (the README says 200; the
 * code says 100), driftFactor 0.01: about 2 s of trying. The one setting tuned: retryCount =
 * ceil(waitTimeoutMs / retryDelay), so its tries spend the buyer's wait on average (between about
 * half and 1.5× of it, with the jitter); a wait of 0 is one try. It is a constructor option only
 * (`lockWithOptions` reads `options.retryCount || this.retryCount`, so a per-call 0 falls back to
 * 10): one Redlock per retry count, all over the same clients. TTL → the lock's `ttl`.
 *
 * How it fails: no fencing token and no lease check, so a holder paused past the TTL (or whose
 * majority a clock jump or a restarted node without persistence took away) writes after the next
 * holder: two holders, a unit sold twice. It does check validity (the majority granted and the
 * TTL minus elapsed and drift still positive). Each try waits for every node's answer, with no
 * per-node timeout: a node that hangs holds every try up for the client's command timeout. Its
 * promises are Bluebird's.
 *
 * Busy: its LockError (no majority within the retries); unavailable when fewer than a majority of
 * nodes then answer a PING, or on any other error. An unlock LockError (no majority released) is
 * the lock lost if the nodes answer.
 */
const LIBRARY = "redlock@4.2.0";
/** Its default delay between tries (redlock.js `defaults.retryDelay`). */
const RETRY_DELAY_MS = 200;

export function createPeerRedlock4(clients: LockClients) {
  // Built on first use (building a strategy opens no connection); one per retry count, at most
  // one per RETRY_DELAY_MS of the longest wait.
  const byRetryCount = new Map<number, Redlock>();
  const redlockFor = (retryCount: number) => {
    let redlock = byRetryCount.get(retryCount);
    if (!redlock) byRetryCount.set(retryCount, (redlock = new Redlock(clients.redisNodes(), { retryCount })));
    return redlock;
  };
  const peer: PeerLibrary = {
    name: "peer-redlock4",
    safe: false,
    library: LIBRARY,
    readiness: () => [redisMajorityReady(clients.redisNodes)],
    async acquire(key, options) {
      const lock = await redlockFor(retriesFor(options.waitTimeoutMs, RETRY_DELAY_MS)).lock(key, options.ttlMs);
      return {
        validUntil: monotonicOf(lock.expiration),
        release: () => Promise.resolve(lock.unlock()).then(() => true, async (error: unknown) => {
          if (error instanceof Redlock.LockError) return lostUnlessDown(peer);
          throw error;
        }),
      };
    },
    isBusy: (error) => error instanceof Redlock.LockError,
    serversAnswer: majorityAnswers(clients.redisNodes),
  };
  return createPeerStrategy(peer);
}
