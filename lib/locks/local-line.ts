import { leaseEnd, now } from "./lease";
import { acquireLocal, hasLocalWaiters } from "./local-queue";
import type { HeldLock, LockOptions } from "./types";

export interface SharedLock {
  /**
   * Which lock this is (strategy and TTL): a lease is passed only to a buyer asking for the same
   * kind, so a strategy switch or a new TTL never inherits the previous lock.
   */
  readonly kind: string;
  /**
   * Acquires by `deadline` (Date.now() ms) or throws; resolves with when the lock stops being
   * ours on the monotonic clock (see ./lease.ts), or Infinity for a lock with no expiry.
   */
  acquire(deadline: number): Promise<number>;
  /** Resolves false when the lock was no longer ours (expired, or taken by another holder). */
  release(): Promise<boolean>;
  /**
   * Watchdog: extends the lock by a TTL while its holder works; resolves false when the lock is
   * no longer ours. When present, it runs every TTL/3; each success moves the lease's end to a
   * TTL after the renewal was sent, and a renewal that fails or hangs lets the lease run out.
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
  /**
   * False for the unsafe teaching strategies (setnx): their holders skip the time-left check
   * before writing, exactly as the naive code the articles show does. @default true
   */
  readonly checked?: boolean;
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
  /** When the lock stops being ours, monotonic ms; moved forward by each successful renewal. */
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
    const timers = armExpiry(lease, options.ttlMs, expiry);
    // Handed on early (writeSent): the lease now belongs to the next buyer of the line.
    let handedOn = false;
    const writeSent = () => {
      if (handedOn || !canHandOn(resource, lease)) return;
      handedOn = true;
      timers.stop();
      releaseLocal();
    };
    try {
      return await critical({
        signal: expiry.signal,
        ...(lease.lock.checked !== false && { timeLeftMs: () => lease.validUntil - now() }),
        fencingToken: lease.lock.fencingToken?.(),
        writeSent: lease.lock.handOn === false || lease.lock.renew ? undefined : writeSent,
      });
    } finally {
      timers.stop();
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

/**
 * Aborts the holder's signal when the lease runs out, and with a watchdog renews it every TTL/3:
 * each renewal that succeeds moves the end to a TTL after it was sent; one that fails aborts at
 * once; one that hangs changes nothing, so the lease still runs out on time.
 */
function armExpiry(lease: Lease, ttlMs: number, expiry: AbortController): { stop(): void } {
  let expiryTimer: NodeJS.Timeout | undefined;
  let stopped = false;
  const arm = () => {
    clearTimeout(expiryTimer);
    if (stopped) return;
    const leftMs = lease.validUntil - now();
    // A lock with no expiry (setnx-no-expiry) has no validity to watch; Node would run a longer timer after 1 ms.
    if (leftMs <= MAX_TIMER_MS) expiryTimer = setTimeout(() => expiry.abort(), Math.max(0, leftMs));
  };
  arm();
  let renewTimer: NodeJS.Timeout | undefined;
  if (lease.lock.renew) {
    let renewing = false;
    renewTimer = setInterval(() => {
      if (renewing || expiry.signal.aborted) return;
      renewing = true;
      const sentAt = now();
      lease.lock.renew!()
        .then((renewed) => {
          if (!renewed) return expiry.abort();
          lease.validUntil = Math.max(lease.validUntil, leaseEnd(sentAt, ttlMs));
          arm();
        })
        .catch(() => expiry.abort())
        .finally(() => {
          renewing = false;
        });
    }, Math.max(1, Math.floor(ttlMs / 3)));
  }
  return {
    stop() {
      stopped = true;
      clearTimeout(expiryTimer);
      clearInterval(renewTimer);
    },
  };
}

/** The lease handed on by the previous holder of this line, or a freshly acquired one. */
async function takeLease(resource: string, options: LockOptions, lock: SharedLock, deadline: number): Promise<Lease> {
  const inherited = leases.get(resource);
  if (inherited) {
    if (inherited.kind === lock.kind && now() < inherited.validUntil) return inherited;
    leases.delete(resource);
    await inherited.lock.release().catch(() => true);
  }
  const validUntil = await lock.acquire(deadline);
  const takenAt = now();
  const lease: Lease = {
    kind: lock.kind,
    lock,
    validUntil,
    takenAt,
    maxAgeMs: Math.min(MAX_LEASE_MS, options.ttlMs * LEASE_SHARE_OF_TTL),
  };
  leases.set(resource, lease);
  return lease;
}

function canHandOn(resource: string, lease: Lease): boolean {
  const at = now();
  return lease.lock.handOn !== false && leases.get(resource) === lease && hasLocalWaiters(resource)
    && at - lease.takenAt < lease.maxAgeMs && at < lease.validUntil;
}
