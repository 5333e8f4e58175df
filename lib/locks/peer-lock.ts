import type Redis from "ioredis";
import { lockKey } from "./keys";
import { now } from "./lease";
import { LockBusyError, LockUnavailableError, type HeldLock, type LockOptions, type LockStrategy, type ReadinessCheck } from "./types";

/**
 * The npm lock libraries as lab strategies (the `peer-…` strategies, one file each in ./strategies):
 * each library takes and gives back the lock its own way — its retries on its own timer, its
 * scripts, its defaults — on the servers our strategies use, around the same critical section.
 * What a buyer sees of them is what it sees of our locks:
 *
 * - The library's own "could not acquire" error (out of retries, acquire timeout, lock_timeout) is
 *   busy (423), unless the servers the lock needs do not answer a PING when it gave up: then they
 *   are the reason, and it is unavailable (503), as for our locks. Most libraries count a node that
 *   does not answer as a vote against and say no more, so they are asked after the fact. Any other
 *   failure (a command or a connection the library let through) is the servers': unavailable.
 * - The holder gets no time left to check before it writes (HeldLock.timeLeftMs): the libraries'
 *   users write when their critical section says so, with no lease check and no fencing token,
 *   as the unfenced lab variants do. Its `signal` aborts, and `leaseLeftMs` (for the record) ends,
 *   when the library's own validity ends (node-redlock's `expiration`), or when it reports the lock
 *   lost; a library that renews its lock itself, or one with no expiry, has no end to report.
 * - No local line, no hand-off, no release signal: every buyer contends on its own and retries on
 *   the library's timer, as the libraries' users do.
 * - Released in `finally` through the library: an answer that the lock was no longer held is
 *   reported through `onLockLost`; a release that fails is left to the TTL (as ./shared-lock.ts).
 */
export interface PeerHold {
  /**
   * When the lock stops being held, on the monotonic clock (./lease.ts), as far as the library
   * tells its holder; Infinity when it renews the lock itself or the lock never expires.
   */
  readonly validUntil: number;
  /** The library's release: false when it says the lock was no longer held; throws when the servers could not say. */
  release(): Promise<boolean>;
}

export interface PeerLibrary {
  /** The strategy's name: `peer-<library>`. */
  readonly name: `peer-${string}`;
  /** What the library guarantees (LockStrategy.safe); each file says why. */
  readonly safe: boolean;
  /** The package and version, for messages: `redlock@5.0.0-beta.2`. */
  readonly library: string;
  /**
   * Takes the lock on `key` as the library's README does, with our TTL and wait turned into its
   * settings. `lost` aborts the holder's signal: for a library that tells its holder the lock is gone.
   */
  acquire(key: string, options: LockOptions, lost: () => void): Promise<PeerHold>;
  /** The library's own "could not acquire" error. */
  isBusy(error: unknown): boolean;
  /** Asked when the library gave up: do enough of its servers answer for the lock to be had? */
  serversAnswer(): Promise<boolean>;
  readonly readiness?: LockStrategy["readiness"];
}

/** The longest delay a Node timer takes. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** How long a server may take to answer the PING asked after a library gave up. */
export const PROBE_MS = 500;

export function createPeerStrategy(peer: PeerLibrary): LockStrategy {
  return {
    name: peer.name,
    safe: peer.safe,
    lab: true,
    ...(peer.readiness && { readiness: peer.readiness }),
    withLock: (resource, options, critical) => holdPeerLock(peer, resource, options, critical),
  };
}

async function holdPeerLock<T>(peer: PeerLibrary, resource: string, options: LockOptions, critical: (held: HeldLock) => Promise<T>): Promise<T> {
  const expiry = new AbortController();
  const hold = await peer.acquire(lockKey(resource), options, () => expiry.abort()).catch(async (error: unknown) => {
    throw await failureOf(peer, resource, options, error);
  });
  const leftMs = hold.validUntil - now();
  const timer = leftMs <= MAX_TIMER_MS ? setTimeout(() => expiry.abort(), Math.max(0, leftMs)) : undefined;
  try {
    return await critical({
      signal: expiry.signal,
      ...(Number.isFinite(hold.validUntil) && { leaseLeftMs: () => hold.validUntil - now() }),
    });
  } finally {
    clearTimeout(timer);
    const released = await hold.release().catch(() => true);
    if (!released) options.onLockLost?.();
  }
}

async function failureOf(peer: PeerLibrary, resource: string, options: LockOptions, error: unknown): Promise<Error> {
  if (error instanceof LockBusyError || error instanceof LockUnavailableError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (!peer.isBusy(error)) return new LockUnavailableError(`${peer.library}: ${message}`, { cause: error });
  if (await peer.serversAnswer().catch(() => false)) return new LockBusyError(resource, options.waitTimeoutMs, `${peer.library} gave up: ${message}`);
  return new LockUnavailableError(`${peer.library} gave up (${message}), and too few of its servers answer`, { cause: error });
}

/**
 * A release the library says failed: the lock was no longer held (false) if the servers answer
 * now; otherwise they could not say, and the lock is left to its TTL (throws).
 */
export async function lostUnlessDown(peer: Pick<PeerLibrary, "serversAnswer" | "library">): Promise<false> {
  if (await peer.serversAnswer().catch(() => false)) return false;
  throw new LockUnavailableError(`${peer.library}: the release could not reach enough servers`);
}

/** Resolves true when `node` answers a PING within `timeoutMs`, false otherwise (never rejects). */
function answers(node: Redis, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const pong = node.ping().then(() => true, () => false);
  return Promise.race([pong, timeout]).finally(() => clearTimeout(timer));
}

/** How many of `nodes` answer a PING within `timeoutMs`. */
export async function answeringNodes(nodes: readonly Redis[], timeoutMs = PROBE_MS): Promise<number> {
  return (await Promise.all(nodes.map((node) => answers(node, timeoutMs)))).filter(Boolean).length;
}

/** A majority of `nodes`: what a Redlock-style lock needs to answer. */
export const majorityOf = (nodes: readonly unknown[]) => Math.floor(nodes.length / 2) + 1;

/** Whether a majority of `nodes` answer a PING now: what a Redlock-style library needs to get its lock. */
export const majorityAnswers = (nodes: () => readonly Redis[]) => async (): Promise<boolean> => {
  const all = nodes();
  return (await answeringNodes(all)) >= majorityOf(all);
};

/** /api/ready for a lock over every Redis node: a majority of them answer (as `redlock` asks). */
export const redisMajorityReady = (nodes: () => readonly Redis[]): ReadinessCheck => ["redis majority", async () => {
  const all = nodes();
  const up = await answeringNodes(all);
  if (up < majorityOf(all)) throw new Error(`${up} of ${all.length} Redis nodes answer, fewer than a majority`);
}];

/** A wall-clock instant (Date.now() ms, as the libraries stamp their locks) on the monotonic clock. */
export const monotonicOf = (wallClockMs: number): number => now() + (wallClockMs - Date.now());

/**
 * A retry count that spends `waitTimeoutMs` on average, for a library that retries a fixed number
 * of times `retryDelayMs` (± its jitter) apart: ceil(wait / delay). A wait of 0 is 0 retries, one try.
 */
export const retriesFor = (waitTimeoutMs: number, retryDelayMs: number): number =>
  Math.max(0, Math.ceil(waitTimeoutMs / retryDelayMs));
