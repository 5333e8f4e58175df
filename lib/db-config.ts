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
    connectionTimeoutMillis: 3000,
    ...overrides,
  };
}
