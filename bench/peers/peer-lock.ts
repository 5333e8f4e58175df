import { setImmediate as nextTurn } from "node:timers/promises";
import { LockBusyError, LockUnavailableError, type LockOptions, type LockStrategy } from "../../lib/locks/types";
import type { UnitLock } from "../../lib/purchase/purchase";
import { lockKey } from "../../lib/locks/keys";

/** A lock a peer library granted: all the benchmark needs of it is a way to give it back. */
export interface PeerLease {
  release(): Promise<unknown>;
}

export interface PeerAdapter {
  /** The library's name, for error messages. */
  readonly name: string;
  /**
   * Defines the peer's scripts on the project's clients (`defineCommand`), once, before any buyer
   * uses them. Those clients auto-pipeline, and a pipeline copies the client's commands when it
   * opens: a command defined while one is pending is missing from it (ioredis#1931, a crash), so
   * the first buyer waits one turn of the event loop, until every such pipeline has been sent.
   */
  readonly prepare?: () => void;
  /** Takes the lock on `key` the library's own way: its retries, its timers, its scripts. */
  acquire(key: string, options: LockOptions): Promise<PeerLease>;
  /** True for the library's "gave up waiting" error; any other failure is the servers' fault. */
  isOutOfRetries(error: unknown): boolean;
}

/**
 * A benchmark peer as the purchase sees a strategy: the library takes the lock, the same critical
 * section runs under it, and the lock is released after. Running out of retries is reported as
 * busy, as the project's strategies do at their wait timeout; any other failure as unavailable.
 * No lease time is passed on, so the holder writes without the pre-write lease check: the
 * libraries' users have none either.
 */
export function peerLock(adapter: PeerAdapter): UnitLock {
  adapter.prepare?.();
  const prepared = adapter.prepare ? nextTurn() : undefined;
  const withLock: LockStrategy["withLock"] = async (resource, options, critical) => {
    let lease: PeerLease;
    try {
      await prepared;
      lease = await adapter.acquire(lockKey(resource), options);
    } catch (error) {
      if (adapter.isOutOfRetries(error)) throw new LockBusyError(resource, options.waitTimeoutMs, `${adapter.name} ran out of retries`);
      throw new LockUnavailableError(`${adapter.name}: ${(error as Error).message}`, { cause: error });
    }
    try {
      return await critical({ signal: new AbortController().signal });
    } finally {
      // The lock expires by its TTL anyway; a failed release must not fail a finished purchase.
      await lease.release().catch(() => {});
    }
  };
  return { withLock };
}
