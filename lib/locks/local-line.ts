import { now } from "./lease";
import { acquireLocal, hasLocalWaiters } from "./local-queue";
import { armExpiry, heldLockOf, type Lease, type SharedLock } from "./shared-lock";
import type { HeldLock, LockOptions } from "./types";

/**
 * The local line, a wrapper a strategy opts into (token-lua, redlock and the safe lab variants do;
 * the naive setnx, setnx-no-expiry and token-get-del do not, so every one of their buyers contends
 * in Redis). This instance's buyers queue in process (FIFO, so none starves) and only the head
 * contends for the shared lock. While more buyers wait behind a holder, the holder hands them the
 * lock it already has instead of releasing and re-acquiring it in Redis — for at most a tenth of
 * the TTL and 50 ms, so other instances get their turn; the last one of the line, or the one at
 * the end of that share, releases it. Release always happens in `finally`, and `signal` aborts
 * when the lock's known validity runs out, for a handed-on lock too. A holder that calls
 * `writeSent` hands the lease on as soon as its write is on the wire rather than answered, so one
 * round trip per purchase, not two, stands between consecutive buyers of the line; and the last
 * of the line, when its write went on the connection the lock releases on, lets the lock go right
 * behind that write instead of after its answer (other instances wait one round trip less).
 */
export async function withLocalLine<T>(
  resource: string,
  options: LockOptions,
  lock: SharedLock | LineLock,
  critical: (held: HeldLock) => Promise<T>,
): Promise<T> {
  const deadline = Date.now() + options.waitTimeoutMs;
  const releaseLocal = await acquireLocal(resource, options.waitTimeoutMs);
  try {
    const lease = inheritedLease(resource, lock.kind)
      ?? (await takeLease(resource, options, "make" in lock ? lock.make() : lock, deadline));
    // Handed on early (writeSent): the lease now belongs to the next buyer of the line, while this
    // holder's leave is still on the wire. Unless the leave went on the connection the lock
    // releases on, the line keeps the lock until that leave is answered (`leaving`).
    // (The hand-on is written inline, not bound to a name: under tsx, which runs the benchmark, every
    // closure bound to a name is named per call with Object.defineProperty, ~0.4 µs each.)
    let handedOn = false;
    let leaving = false;
    let released: Promise<void> | undefined;
    try {
      return await critical(heldLockOf(lease, lease.expiry.signal, lease.lock.handOn === false || lease.lock.renew ? undefined : (sentOn) => {
        if (handedOn || released) return;
        // A write on the connection the lock releases on is ahead of any later release there:
        // nothing needs to wait for its answer.
        const behind = sentOn !== undefined && sentOn === lease.lock.releasesOn;
        if (canHandOn(resource, lease)) {
          handedOn = true;
          if (!behind) {
            leaving = true;
            lease.leaving += 1;
          }
          releaseLocal();
        } else if (behind && lines.get(resource) === lease) {
          // The last of the line: Redis runs the release after the write, so no other instance's
          // holder reads the stock before it.
          letGo(resource);
          released = releaseLease(lease, options.onLockLost, releaseLocal);
        }
      }));
    } finally {
      if (handedOn) {
        if (leaving) leftLease(lease);
      } else if (released) await released;
      else if (!canHandOn(resource, lease)) {
        letGo(resource);
        // A lock that hands on lets the next buyer of the line contend once its release is sent:
        // that buyer's acquire travels behind the release on each node's connection, so Redis
        // deletes the old token first, and the line does not stand still for the release's round trip.
        await releaseLease(lease, options.onLockLost, lease.lock.handOn === false ? undefined : releaseLocal);
      }
    }
  } finally {
    releaseLocal();
  }
}

/**
 * How long one instance may keep passing a shared lock along its own line before it must let
 * it go in Redis, as a share of the TTL (and at most MAX_LINE_LEASE_MS). It bounds what the other
 * instances wait for, and guarantees every holder at least 90 % of a freshly acquired validity.
 */
const LEASE_SHARE_OF_TTL = 0.1;
const MAX_LINE_LEASE_MS = 50;

interface LineLease extends Lease {
  readonly kind: string;
  readonly takenAt: number;
  readonly maxAgeMs: number;
  /**
   * Holders that handed the lease on when their write was sent, on another connection than the
   * lock's release goes on, and whose critical section has not ended yet (their leave not
   * answered). The lock is released in Redis only after all of them: a
   * later holder of the line may end without a command behind theirs on the stock's connection (a
   * sold-out answered without reading), and where the lock lives on another server than the stock,
   * another instance's holder must not get in before the last write has landed. A count, with one
   * wake-up for the release waiting on it, rather than a promise per holder.
   */
  leaving: number;
  allLeft?: () => void;
  /**
   * Aborts when the lease runs out: one signal and one timer per lease, shared by every holder it
   * is passed to (with a timer and an AbortController per holder, token-lua ran at 0.85–0.89 of the serial
   * ceiling in-process; with one per lease, 0.90–0.94: docs/benchmarks.md, round four).
   */
  readonly expiry: AbortController;
  /** The expiry timer (and a watchdog's renewals), stopped when the line lets the lease go. */
  timers: { stop(): void };
}

/**
 * Lets go of the line's lock in Redis, once every holder that handed it on has left; `sent` is
 * called as soon as the release is issued (the locks issue every command of a release on the call,
 * on the connection their acquire uses). Some paths still let an acquire overtake it: a script
 * sent again after NOSCRIPT, a Redlock node skipped as down that comes back, a Cluster or Sentinel
 * command retried across a reconnection, a strategy switch to another server. Such an acquire
 * finds the old token and waits for the release's publish: only slower, never two holders. A
 * `handOn` lock whose release awaits before sending, or sends on another connection, keeps that
 * safety but loses the speed-up.
 */
async function releaseLease(lease: LineLease, onLost?: () => void, sent?: () => void): Promise<void> {
  lease.timers.stop();
  while (lease.leaving > 0) {
    await new Promise<void>((resolve) => {
      const before = lease.allLeft; // one releaser per lease is the rule; a second must not strand the first
      lease.allLeft = before ? () => (before(), resolve()) : resolve;
    });
  }
  const releasing = lease.lock.release();
  sent?.();
  // A failed release must not undo a finished purchase: the lock expires by its TTL anyway.
  const released = await releasing.catch(() => true);
  if (!released) onLost?.();
}

/** A holder that handed the lease on has ended: the last of them wakes the release waiting for them. */
function leftLease(lease: LineLease): void {
  lease.leaving -= 1;
  if (lease.leaving > 0 || !lease.allLeft) return;
  const wake = lease.allLeft;
  lease.allLeft = undefined;
  wake();
}

/** The shared lock this process holds per resource, while its line passes it along. */
const lines = new Map<string, LineLease>();

/**
 * A shared lock the line builds only when it must acquire one: a buyer handed the lease by the one
 * before it never uses a lock of its own, and a lock's token, closures and key strings built for
 * every buyer anyway were CPU and garbage on the path between two holders (docs/benchmarks.md).
 */
export interface LineLock {
  /** As SharedLock.kind: a lease is passed only to a buyer asking for the same kind. */
  readonly kind: string;
  make(): SharedLock;
}

/**
 * The LineLock of `kind` that `make` builds. Passed here rather than written as an object's
 * `make: () => …`, the closure is not named per call under tsx (see withLocalLine).
 */
export function lineLock(kind: string, make: () => SharedLock): LineLock {
  return { kind, make };
}

/** The lease handed on by the previous holder of this line, when it is still good for this buyer. */
function inheritedLease(resource: string, kind: string): LineLease | undefined {
  const inherited = lines.get(resource);
  return inherited && inherited.kind === kind && now() < inherited.validUntil ? inherited : undefined;
}

/** A freshly acquired lease, once the one this line held (expired, or of another strategy) is let go. */
async function takeLease(resource: string, options: LockOptions, lock: SharedLock, deadline: number): Promise<LineLease> {
  const stale = lines.get(resource);
  if (stale) {
    letGo(resource);
    // Expired or of another strategy: not a lost lock of this buyer's.
    await releaseLease(stale);
  }
  const validUntil = await lock.acquire(deadline);
  const expiry = new AbortController();
  const lease: LineLease = {
    kind: lock.kind,
    lock,
    validUntil,
    takenAt: now(),
    leaving: 0,
    maxAgeMs: Math.min(MAX_LINE_LEASE_MS, options.ttlMs * LEASE_SHARE_OF_TTL),
    expiry,
    timers: { stop() {} },
  };
  lease.timers = armExpiry(lease, options.ttlMs, expiry, options.onObserve);
  lines.set(resource, lease);
  return lease;
}

function canHandOn(resource: string, lease: LineLease): boolean {
  const at = now();
  return lease.lock.handOn !== false && lines.get(resource) === lease && hasLocalWaiters(resource)
    && at - lease.takenAt < lease.maxAgeMs && at < lease.validUntil;
}

/** Who waits for this process's line to let go of each resource's shared lock. */
const letGoWaiters = new Map<string, Set<() => void>>();

function letGo(resource: string): void {
  lines.delete(resource);
  const waiters = letGoWaiters.get(resource);
  if (!waiters) return;
  letGoWaiters.delete(resource);
  for (const wake of waiters) wake();
}

/** A line lets go within MAX_LINE_LEASE_MS unless its holder's critical section runs long. */
export const LET_GO_WAIT_MS = MAX_LINE_LEASE_MS + 5;

/**
 * Resolves once this process's line no longer holds the shared lock of `resource` (at once if it
 * does not), or after `maxMs`. Work that can wait — a sold unit's order insert and answer — waits
 * for it: while the line holds the lock, one buyer follows another one turn of the event loop
 * apart, and each turn also carries whatever else the instance has to do. Deferred, that work is
 * done while another instance holds the lock, so the two instances' cores take turns instead of
 * one of them doing both (measured over HTTP, 50 buyers: token-lua 0.57–0.69 of atomic's
 * purchases/s without, 0.77–0.83 with; docs/benchmarks.md).
 */
export function lineLetGo(resource: string, maxMs: number = LET_GO_WAIT_MS): Promise<void> {
  if (!lines.has(resource) || maxMs <= 0) return Promise.resolve();
  const waiters = letGoWaiters.get(resource) ?? new Set<() => void>();
  letGoWaiters.set(resource, waiters);
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      waiters.delete(done);
      resolve();
    };
    const timer = setTimeout(done, maxMs);
    waiters.add(done);
  });
}
