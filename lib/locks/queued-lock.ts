import { acquireLocal } from "./local-queue";
import type { HeldLock, LockOptions } from "./types";

export interface SharedLock {
  /** Acquires by `deadline` or throws; resolves with how long the lock is known to be held (ms). */
  acquire(deadline: number): Promise<number>;
  /** Resolves false when the lock was no longer ours (expired, or taken by another holder). */
  release(): Promise<boolean>;
}

/**
 * The shape every shared lock runs in: this instance's buyers queue locally (FIFO, so none
 * starves), only the head contends for the shared lock, release always happens in `finally`, and
 * `signal` aborts when the lock's known validity runs out.
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
    const validMs = await lock.acquire(deadline);
    const expiry = new AbortController();
    const timer = setTimeout(() => expiry.abort(), validMs);
    try {
      return await critical({ signal: expiry.signal });
    } finally {
      clearTimeout(timer);
      // A failed release must not undo a finished purchase: the lock expires by its TTL anyway.
      const released = await lock.release().catch(() => true);
      if (!released) options.onLockLost?.();
    }
  } finally {
    releaseLocal();
  }
}
