import { leaseEnd, now } from "./lease";
import type { HeldLock, LockOptions } from "./types";

/**
 * A lock held in a shared server (Redis, Postgres, …) as one holder sees it: acquire, release,
 * maybe renew and a fencing token. `holdSharedLock` runs a critical section under it directly,
 * one contender per buyer; `withLocalLine` (./local-line.ts) puts this instance's buyers in line
 * first. Both arm the same lease: `signal` aborts when the validity runs out, and the holder can
 * ask its time left before it writes.
 */
export interface SharedLock {
  /**
   * Which lock this is (strategy, TTL, config epoch): a lease is passed along a local line only
   * to a buyer asking for the same kind, so a strategy switch or a new TTL never inherits it.
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
  /** Asks the lock service whether this acquisition still holds (see HeldLock.sequencerCurrent). */
  sequencerCurrent?(): Promise<boolean>;
  /**
   * False for locks whose every release must really happen (the lab's unlock variants, the
   * reentrant lock): a local line never hands such a lock on to its next buyer. @default true
   */
  readonly handOn?: boolean;
  /**
   * False for the unsafe teaching strategies (setnx): their holders skip the time-left check
   * before writing, exactly as the naive code the articles show does. @default true
   */
  readonly checked?: boolean;
  /**
   * The connection `release` issues its one command on, on the call (nothing awaited first). A
   * holder's write sent on the same connection is run by the server before the release, so the
   * line need not wait for that write's answer before letting go (HeldLock.writeSent).
   */
  readonly releasesOn?: object;
}

/** Which lock this is (SharedLock.kind): the strategy, its TTL and the config epoch. */
export const kindOf = (name: string, options: LockOptions): string => `${name}:${options.ttlMs}:${options.epoch ?? 0}`;

/**
 * `kindOf` for one strategy, kept for the TTL and epoch it saw last: the config rarely changes, and
 * a string built for every buyer (to be compared with the lease's when it is handed on) was garbage.
 */
export function kindsOf(name: string): (options: LockOptions) => string {
  let ttlMs = Number.NaN;
  let epoch = Number.NaN;
  let kind = "";
  return (options) => {
    if (options.ttlMs !== ttlMs || (options.epoch ?? 0) !== epoch) {
      ttlMs = options.ttlMs;
      epoch = options.epoch ?? 0;
      kind = kindOf(name, options);
    }
    return kind;
  };
}

/** A held lease: when it stops being ours, moved forward by each successful renewal. */
export interface Lease {
  readonly lock: SharedLock;
  validUntil: number;
  /** What every holder of this lease is shown of it, built for its first holder (heldLockOf). */
  views?: LeaseViews;
}

type LeaseViews = Pick<HeldLock, "timeLeftMs" | "leaseLeftMs" | "sequencerCurrent">;

function viewsOf(lease: Lease): LeaseViews {
  const left = () => lease.validUntil - now();
  return {
    timeLeftMs: lease.lock.checked !== false ? left : undefined,
    leaseLeftMs: Number.isFinite(lease.validUntil) ? left : undefined,
    sequencerCurrent: lease.lock.sequencerCurrent?.bind(lease.lock),
  };
}

/** The longest delay a Node timer takes. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * One buyer, one contender: acquires `lock` (waiting at most the wait timeout), runs `critical`
 * with the lease armed, and releases in `finally` whatever `critical` does. A release that finds
 * the lock no longer ours is reported through `onLockLost`; one that fails is left to the TTL.
 */
export async function holdSharedLock<T>(options: LockOptions, lock: SharedLock, critical: (held: HeldLock) => Promise<T>): Promise<T> {
  const lease: Lease = { lock, validUntil: await lock.acquire(Date.now() + options.waitTimeoutMs) };
  const expiry = new AbortController();
  const timers = armExpiry(lease, options.ttlMs, expiry, options.onObserve);
  try {
    return await critical(heldLockOf(lease, expiry.signal));
  } finally {
    timers.stop();
    const released = await lock.release().catch(() => true);
    if (!released) options.onLockLost?.();
  }
}

/**
 * What the critical section sees of a lease. Its functions are the lease's, made once: a line
 * passes one lease to many holders, and closures built for each of them were garbage on the path
 * between two holders (docs/benchmarks.md). A view the lock does not give is undefined.
 */
export function heldLockOf(lease: Lease, signal: AbortSignal, writeSent?: (sentOn?: object) => void): HeldLock {
  const views = (lease.views ??= viewsOf(lease));
  return {
    signal,
    timeLeftMs: views.timeLeftMs,
    leaseLeftMs: views.leaseLeftMs,
    fencingToken: lease.lock.fencingToken?.(),
    sequencerCurrent: views.sequencerCurrent,
    writeSent,
  };
}

/**
 * Aborts the holder's signal when the lease runs out, and with a watchdog renews it every TTL/3:
 * each renewal that succeeds moves the end to a TTL after it was sent; one that fails aborts at
 * once; one that hangs changes nothing, so the lease still runs out on time.
 */
export function armExpiry(lease: Lease, ttlMs: number, expiry: AbortController, onObserve?: LockOptions["onObserve"]): { stop(): void } {
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
  const renew = lease.lock.renew?.bind(lease.lock);
  if (renew) {
    let renewing = false;
    renewTimer = setInterval(() => {
      if (renewing || expiry.signal.aborted) return;
      renewing = true;
      const sentAt = now();
      renew()
        .then((renewed) => {
          if (!renewed) {
            onObserve?.({ kind: "renew-failed" });
            return expiry.abort();
          }
          lease.validUntil = Math.max(lease.validUntil, leaseEnd(sentAt, ttlMs));
          onObserve?.({ kind: "renewed", leaseLeftMs: lease.validUntil - now() });
          arm();
        })
        .catch(() => {
          onObserve?.({ kind: "renew-failed" });
          expiry.abort();
        })
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
