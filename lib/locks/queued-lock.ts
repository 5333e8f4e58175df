import { acquireLocal, hasLocalWaiters } from "./local-queue";
import type { HeldLock, LockOptions } from "./types";

export interface SharedLock {
  /**
   * Which lock this is (strategy and TTL): a lease is passed only to a buyer asking for the same
   * kind, so a strategy switch or a new TTL never inherits the previous lock.
   */
  readonly kind: string;
  /** Acquires by `deadline` or throws; resolves with how long the lock is known to be held (ms). */
  acquire(deadline: number): Promise<number>;
  /** Resolves false when the lock was no longer ours (expired, or taken by another holder). */
  release(): Promise<boolean>;
  /**
   * Watchdog: extends the lock by a TTL while its holder works; resolves false when the lock is
   * no longer ours. When present, it runs every TTL/3 and the holder must stop before writing
   * once a renewal fails (HeldLock.stopWhenLost).
   */
  renew?(): Promise<boolean>;
  /** The fencing token of the current acquisition, when the strategy hands one out. */
  fencingToken?(): number | undefined;
  /**
   * False for locks whose every release must really happen (the lab's unlock variants, the
   * reentrant lock): the holder never hands the lock on to the next buyer of its line.
   * @default true
   */
  readonly handOn?: boolean;
}

/**
 * How long one instance may keep passing a shared lock along its own line before it must let
 * it go in Redis, as a share of the TTL (and at most MAX_LEASE_MS). It bounds what the other
 * instances wait for, and guarantees every holder at least 90 % of a freshly acquired validity.
 */
const LEASE_SHARE_OF_TTL = 0.1;
const MAX_LEASE_MS = 20;
/** The longest delay a Node timer takes. */
const MAX_TIMER_MS = 2 ** 31 - 1;

interface Lease {
  readonly kind: string;
  readonly lock: SharedLock;
  /** Moved forward by each successful watchdog renewal. */
  validUntil: number;
  readonly takenAt: number;
  readonly maxAgeMs: number;
}

/** The shared lock this process holds per resource, while its line passes it along. */
const leases = new Map<string, Lease>();

/**
 * The shape every shared lock runs in: this instance's buyers queue locally (FIFO, so none
 * starves) and only the head contends for the shared lock. While more buyers wait behind a holder,
 * the holder hands them the lock it already has instead of releasing and re-acquiring it in Redis
 * (for at most a tenth of the TTL, 20 ms, so other instances get their turn); the last one of the
 * line, or the one at the end of the lease, releases it. Release always happens in `finally`, and
 * `signal` aborts when the lock's known validity runs out — for a handed-on lock too. A holder that
 * calls `writeSent` hands the lease on as soon as its write is on the wire rather than answered,
 * so one round trip per purchase, not two, stands between consecutive buyers of the line.
 */
export async function withQueuedLock<T>(
  resource: string,
  options: LockOptions,
  lock: SharedLock,
  critical: (held: HeldLock) => Promise<T>,
): Promise<T> {
  const deadline = Date.now() + options.waitTimeoutMs;
  const releaseLocal = await acquireLocal(resource, options.waitTimeoutMs);
  try {
    const lease = await takeLease(resource, options, lock, deadline);
    const expiry = new AbortController();
    const validForMs = Math.max(0, lease.validUntil - Date.now());
    // A lock with no expiry (setnx-no-expiry) has no validity to watch; Node would run a
    // longer timer after 1 ms.
    const timer = lease.lock.renew
      ? startWatchdog(lease, options.ttlMs, expiry)
      : validForMs <= MAX_TIMER_MS ? setTimeout(() => expiry.abort(), validForMs) : undefined;
    const stopTimer = () => {
      clearTimeout(timer);
      clearInterval(timer);
    };
    // Handed on early (writeSent): the lease now belongs to the next buyer of the line.
    let handedOn = false;
    const writeSent = () => {
      if (handedOn || !canHandOn(resource, lease)) return;
      handedOn = true;
      stopTimer();
      releaseLocal();
    };
    try {
      return await critical({
        signal: expiry.signal,
        stopWhenLost: Boolean(lease.lock.renew),
        fencingToken: lease.lock.fencingToken?.(),
        writeSent: lease.lock.handOn === false || lease.lock.renew ? undefined : writeSent,
      });
    } finally {
      stopTimer();
      if (!handedOn && !canHandOn(resource, lease)) {
        leases.delete(resource);
        // A failed release must not undo a finished purchase: the lock expires by its TTL anyway.
        const released = await lease.lock.release().catch(() => true);
        if (!released) options.onLockLost?.();
      }
    }
  } finally {
    releaseLocal();
  }
}

/** Renews the lease every TTL/3 while its holder works; a failed renewal aborts the holder. */
function startWatchdog(lease: Lease, ttlMs: number, expiry: AbortController): NodeJS.Timeout {
  let renewing = false;
  return setInterval(() => {
    if (renewing || expiry.signal.aborted) return;
    renewing = true;
    lease.lock.renew!()
      .then((renewed) => {
        if (renewed) lease.validUntil = Date.now() + ttlMs;
        else expiry.abort();
      })
      .catch(() => expiry.abort())
      .finally(() => {
        renewing = false;
      });
  }, Math.max(1, Math.floor(ttlMs / 3)));
}

/** The lease handed on by the previous holder of this line, or a freshly acquired one. */
async function takeLease(resource: string, options: LockOptions, lock: SharedLock, deadline: number): Promise<Lease> {
  const inherited = leases.get(resource);
  if (inherited) {
    if (inherited.kind === lock.kind && Date.now() < inherited.validUntil) return inherited;
    leases.delete(resource);
    await inherited.lock.release().catch(() => true);
  }
  const validMs = await lock.acquire(deadline);
  const takenAt = Date.now();
  const lease: Lease = {
    kind: lock.kind,
    lock,
    validUntil: takenAt + validMs,
    takenAt,
    maxAgeMs: Math.min(MAX_LEASE_MS, options.ttlMs * LEASE_SHARE_OF_TTL),
  };
  leases.set(resource, lease);
  return lease;
}

function canHandOn(resource: string, lease: Lease): boolean {
  return lease.lock.handOn !== false && leases.get(resource) === lease && hasLocalWaiters(resource) && Date.now() - lease.takenAt < lease.maxAgeMs
    && Date.now() < lease.validUntil;
}
