import { getDb } from "../db";
import { LockBusyError, LockUnavailableError, type HeldLock, type LockOptions, type LockStrategy } from "./types";

/**
 * A Postgres row lock: an interactive transaction takes `SELECT … FOR UPDATE` on the resource's
 * row in `lock_rows` and releases it at commit or rollback. Waiters queue inside Postgres and are
 * woken by the commit. Safe; the price is a pooled connection held per holder and per waiter.
 * `lock_timeout` bounds the wait; the transaction timeout (wait + TTL) bounds the whole hold.
 */
const LOCK_NOT_AVAILABLE = "55P03";
const POOL_TIMEOUT = "P2024";
const TRANSACTION_CLOSED = "P2028";

export const pgForUpdate = createRowLock("pg-for-update", false);

/**
 * The row lock; `nowait` (the lab's pg-nowait) takes it with `FOR UPDATE NOWAIT`: a buyer who
 * finds the row locked is answered busy at once instead of queueing.
 */
export function createRowLock(name: "pg-for-update" | "pg-nowait", nowait: boolean): LockStrategy {
  return { name, safe: true, withLock: (resource, options, critical) => withRowLock(nowait, resource, options, critical) };
}

async function withRowLock<T>(nowait: boolean, resource: string, options: LockOptions, critical: (held: HeldLock) => Promise<T>): Promise<T> {
  const startedAt = Date.now();
  try {
    return await getDb().$transaction(
      async (tx) => {
        const waitLeftMs = Math.max(1, options.waitTimeoutMs - (Date.now() - startedAt));
        await tx.$executeRawUnsafe(`SET LOCAL lock_timeout = ${Math.floor(waitLeftMs)}`);
        const rows = nowait
          ? await tx.$queryRaw<{ name: string }[]>`SELECT name FROM lock_rows WHERE name = ${resource} FOR UPDATE NOWAIT`
          : await tx.$queryRaw<{ name: string }[]>`SELECT name FROM lock_rows WHERE name = ${resource} FOR UPDATE`;
        if (rows.length === 0) {
          throw new LockUnavailableError(`no lock row for ${resource}: run the seed (npm run db:seed)`);
        }
        return critical({ signal: new AbortController().signal });
      },
      { maxWait: options.waitTimeoutMs, timeout: options.waitTimeoutMs + options.ttlMs },
    );
  } catch (error) {
    throw classify(error, resource, options.waitTimeoutMs);
  }
}

function classify(error: unknown, resource: string, waitTimeoutMs: number): unknown {
  if (error instanceof LockUnavailableError || error instanceof LockBusyError) return error;
  const text = `${(error as { code?: string }).code ?? ""} ${(error as Error).message ?? ""}`;
  if (text.includes(LOCK_NOT_AVAILABLE) || text.includes("lock timeout") || text.includes(POOL_TIMEOUT)
    || text.includes(TRANSACTION_CLOSED) || text.includes("Unable to start a transaction")) {
    return new LockBusyError(resource, waitTimeoutMs);
  }
  if (/ECONNREFUSED|Can't reach database|connect|terminat|Connection/i.test(text)) {
    return new LockUnavailableError(`PostgreSQL unavailable: ${(error as Error).message}`, { cause: error });
  }
  return error;
}
