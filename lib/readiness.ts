import { getPool } from "./db";
import { getStrategy } from "./locks/registry";
import type { ReadinessCheck } from "./locks/types";
import { getRedis } from "./redis";
import { getActiveConfig } from "./sale/config";

/**
 * `/api/ready`: is every server the active strategy needs reachable right now? Node 1 (stock,
 * config) and Postgres (orders) always; then whatever the strategy says it needs (a majority of
 * the five nodes for Redlock, the Sentinels' primary, the Redis Cluster, PgBouncer, the ZooKeeper ensemble, the etcd cluster).
 * Each check bounded.
 */
const CHECK_MS = 1000;

async function within(what: string, check: () => Promise<unknown>): Promise<[string, string]> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check(),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_MS} ms`)), CHECK_MS))),
    ]);
    return [what, "ok"];
  } catch (error) {
    return [what, (error as Error).message || "failed"];
  } finally {
    clearTimeout(timer);
  }
}

export interface Readiness {
  readonly ready: boolean;
  readonly strategy: string;
  readonly checks: Record<string, string>;
}

export async function readiness(): Promise<Readiness> {
  const base: ReadinessCheck[] = [
    ["redis node 1", () => getRedis().ping()],
    ["postgres", () => getPool().query("SELECT 1")],
  ];
  const config = await Promise.race([
    getActiveConfig(),
    new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), CHECK_MS)),
  ]).catch(() => undefined);
  const strategy = config?.strategy ?? "unknown";
  const own = config ? (getStrategy(config.strategy).readiness?.(config.lockTtlMs) ?? []) : [];
  const checks = Object.fromEntries(await Promise.all([...base, ...own].map(([what, check]) => within(what, check))));
  return { ready: Object.values(checks).every((result) => result === "ok"), strategy, checks };
}
