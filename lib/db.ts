import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient } from "./generated/prisma/client";
import { mainPoolConfig, pgConnectionConfig } from "./db-config";
import { getEnv } from "./env";
import { forgetProcessSingleton, processSingleton } from "./process-singleton";


/**
 * The one pg pool of this process. Prisma's driver adapter runs on it, and so does the one query
 * every purchase makes (the order insert, see lib/purchase/purchase.ts), so both share
 * DATABASE_POOL_SIZE connections. Every wait on it is bounded (lib/db-config.ts mainPoolConfig):
 * the connect, each statement on the server, and each answer on the client.
 */
export function getPool(): pg.Pool {
  return processSingleton("db.pool", () => {
    const pool = new pg.Pool(mainPoolConfig());
    // An idle connection that Postgres drops (a restart, the lab stopping it) must not crash the
    // server; the next query gets a fresh connection or a clear error.
    pool.on("error", () => {});
    return pool;
  });
}

/**
 * The row lock's own pool (pg-for-update): its holders and waiters each keep a connection for the
 * whole hold or wait, so they get connections of their own and can never starve the order insert.
 * DATABASE_LOCK_POOL_SIZE connections; past that, buyers are answered busy (lib/locks/row-lock.ts).
 */
export function getLockPool(): pg.Pool {
  return processSingleton("db.lock-pool", () => createLockPool());
}

/**
 * A new pool with the row lock's settings (the app keeps one; a test may open its own), straight
 * to Postgres, or to `databaseUrl` (the PgBouncer pool below).
 */
export function createLockPool(max = getEnv().DATABASE_LOCK_POOL_SIZE, databaseUrl?: string): pg.Pool {
  // No connect timeout of pg's own: a waiter for a connection is bounded by its wait timeout
  // (lib/locks/row-lock.ts), which tells a full pool (busy) from a dead server (unavailable).
  const pool = new pg.Pool(pgConnectionConfig({ max, connectionTimeoutMillis: 0 }, databaseUrl));
  // A lock session the server ends (its lease ran out, Postgres stopped) must not crash the server.
  pool.on("error", () => {});
  return pool;
}

/**
 * The lock pool's twin through PgBouncer in transaction mode (PGBOUNCER_URL): the advisory locks
 * that go through a pooler. Each of its connections is a client of PgBouncer, which lends a server
 * connection per transaction, not per client — what the pooled advisory lock's lesson is about.
 */
export function getBouncerPool(): pg.Pool {
  return processSingleton("db.bouncer-pool", () => createLockPool(getEnv().DATABASE_LOCK_POOL_SIZE, getEnv().PGBOUNCER_URL));
}

/** The one Prisma client of this process, over the pg driver adapter (no native engine). */
export function getDb(): PrismaClient {
  return processSingleton("db.prisma", () => new PrismaClient({ adapter: new PrismaPg(getPool()) }));
}

export async function closeDb(): Promise<void> {
  const taken = <T>(name: string) => {
    const value = processSingleton<T | undefined>(name, () => undefined);
    forgetProcessSingleton(name);
    return value;
  };
  const db = taken<PrismaClient>("db.prisma");
  const pool = taken<pg.Pool>("db.pool");
  const lockPool = taken<pg.Pool>("db.lock-pool");
  const bouncerPool = taken<pg.Pool>("db.bouncer-pool");
  await db?.$disconnect();
  await Promise.allSettled([pool?.end(), lockPool?.end(), bouncerPool?.end()]);
}
