import { AppError, StoreUnavailableError } from "../errors";

/**
 * The one interface every lock strategy implements, and the errors they share. Callers never
 * import a strategy file: they ask `getStrategy(name)` in ./registry, whose list of names is the
 * one list (STRATEGY_NAMES in ./strategies).
 */

/**
 * The signal of a holder whose lock nobody takes away (no lease: a lock in the process's memory,
 * or no lock at all). One for all, since nothing ever aborts it: a new AbortController per holder
 * was most of `local`'s own CPU over the serial ceiling (docs/benchmarks.md).
 */
export const NEVER_ABORTED: AbortSignal = new AbortController().signal;

export interface LockOptions {
  /** How long the lock lives without its holder (Redis PX, Redlock TTL, pg transaction budget). */
  readonly ttlMs: number;
  /** How long a buyer waits for the lock before giving up as busy. */
  readonly waitTimeoutMs: number;
  /** Called when release finds the lock already expired or taken by someone else. */
  readonly onLockLost?: () => void;
  /**
   * Awaited at each named step of the lock's own work (see LockStep): the caller may delay there
   * (the pitfall lab does) or record it. The lock layer knows nothing of who listens.
   */
  readonly onStep?: (step: LockStep) => void | Promise<void>;
  /**
   * Told, never awaited, what the lock did that its holder cannot see from outside (see
   * LockObservation): renewals and Redlock's votes. The holder timeline records them.
   */
  readonly onObserve?: (observation: LockObservation) => void;
  /**
   * The shared config's epoch (bumped by every strategy or knob switch and sale reset): a lease
   * is handed on only to a buyer of the same epoch. @default 0
   */
  readonly epoch?: number;
  /**
   * Chubby's lock-delay (zookeeper, etcd): after a holder's session or lease ran out without a
   * release, nobody takes the lock for this long, so the old holder's late write lands (or is
   * refused) before a new holder starts. @default 0
   */
  readonly lockDelayMs?: number;
}

/**
 * The points inside a lock's own work where a pause changes the outcome: between SETNX and its
 * PEXPIRE (setnx), before a watchdog renewal is sent, between an unlock's compare and its DEL.
 */
export const LOCK_STEPS = ["after-setnx", "before-renew", "before-release-del"] as const;
export type LockStep = (typeof LOCK_STEPS)[number];

/** What a lock tells `onObserve`. */
export type LockObservation =
  | { readonly kind: "renewed"; readonly leaseLeftMs: number }
  | { readonly kind: "renew-failed" }
  /** Redlock: one acquire attempt's answer from each node, and the validity left after it. */
  | { readonly kind: "votes"; readonly votes: readonly ("granted" | "held" | "timeout" | "down")[]; readonly validityMs: number };

export interface HeldLock {
  /** Aborted when the strategy knows the lock is no longer held (TTL or validity elapsed). */
  readonly signal: AbortSignal;
  /**
   * A lease's time left, in ms on the monotonic clock (see ./lease.ts), counted from when the
   * acquire or the last successful renewal was sent, drift deducted. The holder checks it just
   * before writing and stops below MIN_LEASE_LEFT_MS. Absent for locks that are no lease (no
   * expiry, in-process) and for the unsafe teaching strategies, which skip the check on purpose.
   */
  readonly timeLeftMs?: () => number;
  /**
   * The same time left, for the record only: also given for the unsafe teaching strategies, whose
   * holders do not check it, so the timeline can mark where their lock expired.
   */
  readonly leaseLeftMs?: () => number;
  /** A number from a Redis counter, higher for every acquisition; the store refuses older ones. */
  readonly fencingToken?: number;
  /**
   * Chubby's sequencer check, asked just before the write: does the lock service still hold this
   * holder's lock (its znode, its key at its create revision)? A pause between the answer and the
   * write is still open: only a fencing token checked by the store itself closes it.
   */
  readonly sequencerCurrent?: () => Promise<boolean>;
  /**
   * Present when the lock can pass along this instance's line: call it once the holder's last
   * write has been *sent* on the store's one connection. The next buyer of the line may then
   * start at once: its commands travel on that connection behind the write, so Redis runs them
   * after it, and the lock is not released in Redis in between. Saves the write's round trip
   * from every hand-off. `sentOn` is the connection the write went on: the last holder of the
   * line whose lock releases on that same connection releases right behind the write (Redis runs
   * the release after it, so no other instance's holder reads before the write); any other
   * release to other instances waits for the write's reply.
   */
  readonly writeSent?: (sentOn?: object) => void;
}

export interface LockStrategy {
  readonly name: string;
  /** True when the strategy keeps stock honest across instances while work < TTL. */
  readonly safe: boolean;
  /** A pitfall-lab variant (shown apart from the six strategies of the lesson). */
  readonly lab?: boolean;
  /**
   * Whether this instance's buyers line up locally before contending (./local-line.ts):
   * `queue` — only the head of the line contends in the shared server; `hand-off` — and a holder
   * passes its lock to the next buyer of the line without releasing it in between. Absent: every
   * buyer contends on its own.
   */
  readonly localLine?: "queue" | "hand-off";
  /**
   * True when there is no lock at all because the stock update itself is atomic: the purchase
   * then takes a unit with one Lua decrement instead of the read-modify-write critical section.
   */
  readonly lockFree?: boolean;
  /**
   * What /api/ready asks of the servers this strategy needs beyond Redis node 1 and Postgres (which
   * every purchase needs): each check by name, a call that resolves when its server answers.
   */
  readiness?(ttlMs: number): readonly ReadinessCheck[];
  /**
   * Resolves once this process no longer holds `resource`'s lock on behalf of a line of buyers
   * (at once for a strategy without a local line, or after a bounded wait): work that can wait —
   * a sold unit's order — waits for it, so it runs while another instance holds the lock.
   */
  whenLetGo?(resource: string): Promise<void>;
  /**
   * Runs `critical` while holding the lock on `resource`; waits at most `waitTimeoutMs` for it.
   * The lock is released in `finally`, whatever `critical` does.
   * @throws LockBusyError when the wait timeout passes
   * @throws LockUnavailableError when a backing server needed for the lock is down
   */
  withLock<T>(resource: string, options: LockOptions, critical: (held: HeldLock) => Promise<T>): Promise<T>;
}

/** A server a strategy needs, by name, and a call that resolves when it answers. */
export type ReadinessCheck = readonly [name: string, check: () => Promise<unknown>];

/** 423: the lock could not be had in time; the buyer may try again. */
export class LockBusyError extends AppError {
  override name = "LockBusyError";
  readonly status = 423;
  readonly code = "busy";
  override readonly retryAfterS = 1;
  constructor(resource: string, waitedMs: number, reason?: string) {
    super(`the lock on ${resource} could not be had within ${waitedMs} ms${reason ? `: ${reason}` : ""}`);
  }
}

/** 503: a server the lock needs is down (a store the request needs, as lib/errors.ts has it). */
export class LockUnavailableError extends StoreUnavailableError {
  override name = "LockUnavailableError";
}

/** 503 from a lock that counts only once a replica has it (`WAIT 1`): no replica acknowledged in time. */
export class ReplicaUnconfirmedError extends LockUnavailableError {
  constructor(key: string, waitedMs: number) {
    super(`no replica confirmed the lock on ${key} within ${waitedMs} ms`);
  }
}

/** The holder found at release that its lock had already expired or been taken by someone else. */
export class LockLostError extends AppError {
  override name = "LockLostError";
  readonly status = 503;
  readonly code = "lock_lost";
  constructor(resource: string, when = "at release") {
    super(`the lock on ${resource} was no longer held ${when}`);
  }
}
