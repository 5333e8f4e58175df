import type { PoolConfig } from "pg";
import { getEnv } from "./env";

/**
 * pg pool settings from DATABASE_URL (or `databaseUrl`: PGBOUNCER_URL), split into fields. The
 * Prisma pg adapter ignores the shadow database when it is handed a `connectionString`, so
 * `migrate` needs host/port/user/database.
 */
export function pgConnectionConfig(overrides: Partial<PoolConfig> = {}, databaseUrl?: string): PoolConfig {
  const env = getEnv();
  const url = new URL(databaseUrl ?? env.DATABASE_URL);
  return {
    host: url.hostname,
    port: Number(url.port || 5432),
    user: decodeURIComponent(url.username || "postgres"),
    password: url.password ? decodeURIComponent(url.password) : undefined,
    database: url.pathname.replace(/^\//, "") || "postgres",
    max: env.DATABASE_POOL_SIZE,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    ...overrides,
  };
}

/**
 * How long the main pool waits for a connection: an idle one of the pool, or a new one to connect.
 * A server that does not complete a connect in this long is down as far as a buyer is concerned.
 */
export const CONNECT_TIMEOUT_MS = 3000;

/**
 * How long a statement of the main pool may run before Postgres cancels it (`statement_timeout`,
 * SQLSTATE 57014). Sized from what the code already waits on this pool: an order may wait this
 * long to go out (QUEUE_BOUND_MS in lib/purchase/order-store.ts is this bound), and the longest a
 * healthy Postgres keeps an order statement waiting is behind the reconciler's transaction on its
 * row, which lib/purchase/reconciler.ts keeps under this bound (9 s at most). A statement still
 * out after it is a stalled Postgres, and its buyers are answered as such.
 */
export const STATEMENT_TIMEOUT_MS = 10_000;

/**
 * How long the client waits for an answer to a query (pg's `query_timeout`) before it gives up
 * on it and the connection (pool.query discards a connection whose query failed). Postgres
 * answers a statement past STATEMENT_TIMEOUT_MS itself, keeping the connection, whenever it can
 * answer at all; this bound is for when it cannot: a partition drops the packets, the socket
 * stays open and nothing comes back — without it an order batch waited forever, and the order
 * store's breaker never heard of a failure.
 */
export const QUERY_TIMEOUT_MS = STATEMENT_TIMEOUT_MS + 2000;

/**
 * The main pool's settings (lib/db.ts getPool): every wait on it bounded. Not the lock pools':
 * a row lock's holder keeps its transaction open on purpose, for as long as its lease, and a
 * waiter waits as long as its wait timeout (lib/locks/row-lock.ts bounds both).
 */
export function mainPoolConfig(): PoolConfig {
  return pgConnectionConfig({ connectionTimeoutMillis: CONNECT_TIMEOUT_MS, statement_timeout: STATEMENT_TIMEOUT_MS, query_timeout: QUERY_TIMEOUT_MS });
}
