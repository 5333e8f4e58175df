import type { Pool, PoolClient } from "pg";
import { LockBusyError, LockLostError, LockUnavailableError } from "./types";

/** What the Postgres locks share: getting a connection of their pool in time, and naming what went wrong. */
const LOCK_NOT_AVAILABLE = "55P03";
/** How long a buyer who never waits (wait timeout 0) may take to get a connection of the pool. */
const CONNECT_FOR_ONE_TRY_MS = 2000;

/**
 * A connection of a Postgres lock pool (straight or through PgBouncer) within the wait timeout. All of them held by holders and waiters
 * is contention, answered busy with the reason; a server that does not answer is unavailable.
 */
export async function connectForLock(pool: Pool, resource: string, waitTimeoutMs: number): Promise<PoolClient> {
  const saturated = () => pool.idleCount === 0 && pool.totalCount >= (pool.options.max ?? 10);
  // Never waiting for the lock is not never waiting for a connection: with a wait timeout of 0 a
  // buyer that finds every connection taken is busy at once, and any other gets one (or finds
  // Postgres down) within the time a connect takes.
  if (waitTimeoutMs <= 0 && saturated()) {
    throw new LockBusyError(resource, waitTimeoutMs, `all ${pool.options.max} lock connections are held by holders and waiters`);
  }
  const connectMs = waitTimeoutMs > 0 ? waitTimeoutMs : CONNECT_FOR_ONE_TRY_MS;
  const connecting = pool.connect();
  try {
    return await within(connecting, connectMs, () => new Error("timeout"));
  } catch (error) {
    // A connection that arrives after we gave up goes straight back.
    connecting.then((late) => late.release(), () => {});
    if ((error as Error).message === "timeout" && saturated()) {
      throw new LockBusyError(resource, waitTimeoutMs, `all ${pool.options.max} lock connections are held by holders and waiters`);
    }
    throw new LockUnavailableError(`PostgreSQL unavailable: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * `work`'s result, or `late()` thrown once `ms` have passed without one. `work` goes on: what it
 * does after that (a connection that comes, a statement that ends) is the caller's to put right.
 */
export async function within<T>(work: Promise<T>, ms: number, late: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(late()), Math.max(0, ms));
  });
  try {
    return await Promise.race([work, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A Postgres error as the lock's caller should see it: lock_timeout or NOWAIT is busy; a server
 * gone (refused, reset, a session ended, PgBouncer with no server to lend in time) is unavailable.
 */
export function classifyPgError(error: unknown, resource: string, waitTimeoutMs: number): unknown {
  if (error instanceof LockUnavailableError || error instanceof LockBusyError || error instanceof LockLostError) return error;
  if (!(error instanceof Error)) return error;
  const code = (error as { code?: string }).code ?? "";
  if (code === LOCK_NOT_AVAILABLE) return new LockBusyError(resource, waitTimeoutMs);
  // SQLSTATE class 08 is a connection exception: PgBouncer's own refusals ("query_wait_timeout",
  // "server login has been failing") come as 08P01. 57P01–57P03: the server shut down or starts.
  if (/^(08|57P0[1-3])/.test(code) || /ECONNREFUSED|ECONNRESET|Can't reach database|connect|terminat|Connection/i.test(`${code} ${error.message}`)) {
    return new LockUnavailableError(`PostgreSQL unavailable: ${error.message}`, { cause: error });
  }
  return error;
}
