import type { UnitLock } from "../../lib/purchase/purchase";
import type { Workload } from "../workload";
import { NODE_REDLOCK_DEFAULT, nodeRedlockPeer } from "./node-redlock";
import { NODE_REDLOCK_4_DEFAULT, nodeRedlock4Peer } from "./node-redlock-4";
import { REDIS_SEMAPHORE_DEFAULT, redisSemaphoreMutexPeer, redisSemaphoreRedlockPeer } from "./redis-semaphore";
import { REDLOCK_UNIVERSAL_DEFAULT, redlockUniversalPeer } from "./redlock-universal";
import { SESAMECARE_REDLOCK_DEFAULT, sesamecareRedlockPeer } from "./sesamecare-redlock";

/**
 * The libraries the project's locks are measured against, each with its defaults and one tuned
 * setting (docs/benchmarks.md says why that one). They run in-process only, on the same
 * connections and around the same critical section as the project's rows: a library has no
 * HTTP endpoint of its own.
 */

/** The project lock a peer is held up against: `redlock` (five nodes) or `token-lua` (one node). */
export type PeerFamily = "redlock" | "mutex";

export interface PeerRow {
  /** `<library> (defaults)` or `<library> (tuned <setting>)`. */
  readonly label: string;
  /** The library's name alone: BENCH_ONLY selects both of its rows with it. */
  readonly peer: string;
  readonly family: PeerFamily;
  readonly lock: () => UnitLock;
}

/**
 * The Redlock libraries tuned: a try every 50 ± 50 ms for as long as our buyers wait. Their
 * defaults give up after about 2 s; of the delays tried on node-redlock 5 (10, 25, 50, 100 ms),
 * 50 was best: shorter ones only add failed rounds on all five nodes.
 */
export function retryForTheWait(workload: Workload) {
  return { retryDelay: 50, retryJitter: 50, retryCount: Math.ceil(workload.waitTimeoutMs / 50) };
}

/**
 * redlock-universal tuned the same way, in its own names: a try every 50 ms (it has no jitter) for
 * as long as our buyers wait. Its defaults give up after about 0.6 s (3 retries, 200 ms apart).
 */
export function attemptsForTheWait(workload: Workload) {
  const { retryDelay, retryCount } = retryForTheWait(workload);
  return { retryDelay, retryAttempts: retryCount };
}

/**
 * redis-semaphore tuned: it gives up when our buyers do. Its default, 10 s, is twice their wait,
 * and a buyer still without an answer 500 ms past its wait counts as starved.
 */
export function acquireForTheWait(workload: Workload) {
  return { acquireTimeout: workload.waitTimeoutMs };
}

function pair<S>(peer: string, family: PeerFamily, build: (settings: S) => UnitLock, defaults: S, tuned: { readonly settings: S; readonly note: string }): PeerRow[] {
  return [
    { label: `${peer} (defaults)`, peer, family, lock: () => build(defaults) },
    { label: `${peer} (tuned ${tuned.note})`, peer, family, lock: () => build(tuned.settings) },
  ];
}

export function peerRows(workload: Workload): PeerRow[] {
  const retry = retryForTheWait(workload);
  const retryTuned = { settings: retry, note: `retry ${retry.retryDelay}±${retry.retryJitter} ms ×${retry.retryCount}` };
  const acquire = acquireForTheWait(workload);
  const acquireTuned = { settings: acquire, note: `acquireTimeout ${acquire.acquireTimeout} ms` };
  const attempts = attemptsForTheWait(workload);
  const attemptsTuned = { settings: attempts, note: `retry ${attempts.retryDelay} ms ×${attempts.retryAttempts}` };
  return [
    ...pair("redis-semaphore Mutex", "mutex", redisSemaphoreMutexPeer, REDIS_SEMAPHORE_DEFAULT, acquireTuned),
    ...pair("redis-semaphore RedlockMutex", "redlock", redisSemaphoreRedlockPeer, REDIS_SEMAPHORE_DEFAULT, acquireTuned),
    ...pair("node-redlock 4", "redlock", nodeRedlock4Peer, NODE_REDLOCK_4_DEFAULT, retryTuned),
    ...pair("node-redlock 5-beta", "redlock", nodeRedlockPeer, NODE_REDLOCK_DEFAULT, retryTuned),
    ...pair("@sesamecare-oss/redlock", "redlock", sesamecareRedlockPeer, SESAMECARE_REDLOCK_DEFAULT, retryTuned),
    ...pair("redlock-universal", "redlock", redlockUniversalPeer, REDLOCK_UNIVERSAL_DEFAULT, attemptsTuned),
  ];
}
