import type { ReleaseSignals } from "./release-signal";
import { LockBusyError, LockUnavailableError } from "./types";

export type Attempt =
  | { readonly acquired: true }
  /** `holderTtlMs`: the current holder's remaining TTL, or Infinity when its lock never expires. */
  | { readonly acquired: false; readonly holderTtlMs: number };

export interface ContendOptions {
  readonly resource: string;
  readonly deadline: number;
  readonly waitTimeoutMs: number;
  /** What wakes this waiter when the holder releases. */
  readonly releases: ReleaseSignals;
  /** Nodes whose release messages should wake this waiter. */
  readonly nodeIndexes?: readonly number[];
  /** Random delay in [0, jitterMs) before each retry, so contenders do not retry in lockstep. */
  readonly jitterMs?: number;
}

/** The longest a waiter sleeps without looking at the lock again. */
const UNANNOUNCED_RELEASE_CHECK_MS = 1000;

/**
 * Tries `attempt` until it acquires or the deadline passes. Between tries it sleeps until the lock
 * is released (pub/sub) or the holder's TTL runs out — never a fixed-interval poll. The first try
 * is always made: a wait timeout of 0 means "try once, never wait", not "never try".
 */
export async function contend(options: ContendOptions, attempt: () => Promise<Attempt>): Promise<void> {
  for (let tries = 0; ; tries++) {
    if (tries > 0 && options.deadline - Date.now() <= 0) throw new LockBusyError(options.resource, options.waitTimeoutMs);
    const released = options.releases.armReleaseWait(options.resource, options.nodeIndexes);
    let result: Attempt;
    try {
      await released.ready;
      result = await attempt();
    } catch (error) {
      released.cancel();
      if (error instanceof LockUnavailableError || error instanceof LockBusyError) throw error;
      throw new LockUnavailableError(`lock server unavailable: ${(error as Error).message}`, { cause: error });
    }
    if (result.acquired) {
      released.cancel();
      return;
    }
    if (options.deadline - Date.now() <= 0) {
      released.cancel();
      throw new LockBusyError(options.resource, options.waitTimeoutMs);
    }
    // Pub/sub is fire-and-forget (a subscriber reconnecting misses messages), so even a lock that
    // never expires is looked at again now and then rather than trusted to announce its release.
    await released.wait(Math.min(options.deadline - Date.now(), result.holderTtlMs + 1, UNANNOUNCED_RELEASE_CHECK_MS));
    if (options.jitterMs) await sleep(Math.random() * options.jitterMs);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
