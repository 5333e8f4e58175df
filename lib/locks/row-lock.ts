import type { Pool, PoolClient } from "pg";
import type { LockClients } from "./clients";
import { driftMs, now } from "./lease";
import { LockBusyError, LockUnavailableError, type HeldLock, type LockOptions, type LockStrategy } from "./types";

/**
 * The Postgres row lock behind pg-for-update and its lab variants: a transaction takes
 * `SELECT … FOR UPDATE` on the resource's row in `lock_rows` and releases it at commit. Waiters queue inside Postgres and are woken by the commit.
 * It is a lease too: the session may sit idle in its transaction for at most the TTL
 * (`idle_in_transaction_session_timeout`), after which Postgres ends it and the next waiter gets
 * the row while the old holder may still be working. So the holder's write is fenced with a token
 * from a Postgres sequence taken inside the transaction (the fenced stock store refuses a late,
 * lower one) and checks its time left before writing. Holders and waiters use a pool of their own.
 */
const LOCK_NOT_AVAILABLE = "55P03";
/** How long a buyer who never waits (wait timeout 0) may take to get a connection of the pool. */
const CONNECT_FOR_ONE_TRY_MS = 2000;

export interface RowLockVariant {
  readonly name: string;
  readonly lab?: boolean;
  /** `FOR UPDATE NOWAIT`: a buyer who finds the row locked is answered busy at once. */
  readonly nowait: boolean;
  /**
   * Fence the write and check the lease before it. False only for the lab's `pg-unfenced`, the row
   * lock as it is usually written, which trusts the lock to last until commit.
   */
  readonly fenced: boolean;
}

export function createRowLock(clients: LockClients, variant: RowLockVariant): LockStrategy {
  return {
    name: variant.name,
    safe: variant.fenced,
    lab: variant.lab,
    withLock: (resource, options, critical) => withRowLock(clients.lockPool(), variant, resource, options, critical),
  };
}

async function withRowLock<T>(pool: Pool, variant: RowLockVariant, resource: string, options: LockOptions, critical: (held: HeldLock) => Promise<T>): Promise<T> {
  const startedAt = Date.now();
  const client = await connect(pool, resource, options.waitTimeoutMs);
  let sessionEnded = false;
  // Postgres ending the session (the lease ran out) is an 'error' event on a checked-out client:
  // expected here, and never an uncaught exception.
  const onSessionError = () => {
    sessionEnded = true;
  };
  client.on("error", onSessionError);
  // An error of the critical section itself passes through as it is.
  let fromCritical = false;
  try {
    await client.query("BEGIN");
    // A wait timeout of 0 is "try once, never wait": NOWAIT (a lock_timeout of 0 would wait forever).
    const nowait = variant.nowait || options.waitTimeoutMs <= 0;
    const waitLeftMs = Math.max(1, options.waitTimeoutMs - (Date.now() - startedAt));
    if (!nowait) await client.query(`SET LOCAL lock_timeout = ${Math.floor(waitLeftMs)}`);
    const { rows } = await client.query<{ name: string }>(
      `SELECT name FROM lock_rows WHERE name = $1 FOR UPDATE${nowait ? " NOWAIT" : ""}`,
      [resource],
    );
    if (rows.length === 0) throw new LockUnavailableError(`no lock row for ${resource}: run the seed (npm run db:seed)`);
    // The lease starts when this statement is sent: Postgres counts the idle time after answering it.
    const sentAt = now();
    const { rows: [lease] } = await client.query<{ token: string }>(
      "SELECT set_config('idle_in_transaction_session_timeout', $1, true), nextval('lock_fence_seq')::text AS token",
      [String(Math.max(1, options.ttlMs))],
    );
    const validUntil = sentAt + options.ttlMs - driftMs(options.ttlMs);
    const expiry = new AbortController();
    const timer = setTimeout(() => expiry.abort(), Math.max(0, validUntil - now()));
    let result: T;
    try {
      fromCritical = true;
      result = await critical({
        signal: expiry.signal,
        ...(variant.fenced && { timeLeftMs: () => validUntil - now(), fencingToken: Number(lease!.token) }),
      });
      fromCritical = false;
    } finally {
      clearTimeout(timer);
    }
    // The transaction wrote nothing (nextval is not transactional): whatever the COMMIT answers —
    // the session ended by its lease, a reset connection — the holder's write is what it is, and
    // failing the purchase now would lose the unit it took. The connection is not reused.
    await client.query("COMMIT").catch(() => {
      sessionEnded = true;
    });
    return result;
  } catch (error) {
    if (!sessionEnded) await client.query("ROLLBACK").catch(() => (sessionEnded = true));
    throw fromCritical ? error : classify(error, resource, options.waitTimeoutMs);
  } finally {
    client.off("error", onSessionError);
    client.release(sessionEnded);
  }
}

/**
 * A connection of the lock pool within the wait timeout. All of them held by holders and waiters
 * is contention, answered busy with the reason; a server that does not answer is unavailable.
 */
async function connect(pool: Pool, resource: string, waitTimeoutMs: number): Promise<PoolClient> {
  const saturated = () => pool.idleCount === 0 && pool.totalCount >= (pool.options.max ?? 10);
  // Never waiting for the lock is not never waiting for a connection: with a wait timeout of 0 a
  // buyer that finds every connection taken is busy at once, and any other gets one (or finds
  // Postgres down) within the time a connect takes.
  if (waitTimeoutMs <= 0 && saturated()) {
    throw new LockBusyError(resource, waitTimeoutMs, `all ${pool.options.max} row-lock connections are held by holders and waiters`);
  }
  const connectMs = waitTimeoutMs > 0 ? waitTimeoutMs : CONNECT_FOR_ONE_TRY_MS;
  let timer: NodeJS.Timeout | undefined;
  const connecting = pool.connect();
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("timeout")), connectMs);
  });
  try {
    return await Promise.race([connecting, timedOut]);
  } catch (error) {
    // A connection that arrives after we gave up goes straight back.
    connecting.then((late) => late.release(), () => {});
    if ((error as Error).message === "timeout" && saturated()) {
      throw new LockBusyError(resource, waitTimeoutMs, `all ${pool.options.max} row-lock connections are held by holders and waiters`);
    }
    throw new LockUnavailableError(`PostgreSQL unavailable: ${(error as Error).message}`, { cause: error });
  } finally {
    clearTimeout(timer);
  }
}

function classify(error: unknown, resource: string, waitTimeoutMs: number): unknown {
  if (error instanceof LockUnavailableError || error instanceof LockBusyError) return error;
  if (!(error instanceof Error)) return error;
  const code = (error as { code?: string }).code ?? "";
  if (code === LOCK_NOT_AVAILABLE) return new LockBusyError(resource, waitTimeoutMs);
  if (/ECONNREFUSED|ECONNRESET|Can't reach database|connect|terminat|Connection/i.test(`${code} ${error.message}`)) {
    return new LockUnavailableError(`PostgreSQL unavailable: ${error.message}`, { cause: error });
  }
  return error;
}
