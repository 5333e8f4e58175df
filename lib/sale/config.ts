import { getEnv } from "../env";
import { isStrategyName } from "../locks/registry";
import { getRedis } from "../redis";
import { lockConfigSchema, type LockConfig, type LockConfigUpdate } from "../validations/config";
import { CONFIG_KEY } from "./keys";

/**
 * The active strategy and its knobs live in one Redis hash that every instance reads on every
 * purchase, so a switch applies to all instances at once. Fields never set fall back to env.
 */
export function getDefaultConfig(): LockConfig {
  const env = getEnv();
  const strategy = isStrategyName(env.LOCK_STRATEGY) ? env.LOCK_STRATEGY : "token-lua";
  return { strategy, lockTtlMs: env.LOCK_TTL_MS, waitTimeoutMs: env.WAIT_TIMEOUT_MS, workMs: env.WORK_MS };
}

export async function getConfig(): Promise<LockConfig> {
  const stored = await getRedis().hgetall(CONFIG_KEY);
  const defaults = getDefaultConfig();
  const merged = {
    strategy: stored.strategy ?? defaults.strategy,
    lockTtlMs: stored.lockTtlMs ? Number(stored.lockTtlMs) : defaults.lockTtlMs,
    waitTimeoutMs: stored.waitTimeoutMs ? Number(stored.waitTimeoutMs) : defaults.waitTimeoutMs,
    workMs: stored.workMs ? Number(stored.workMs) : defaults.workMs,
  };
  const parsed = lockConfigSchema.safeParse(merged);
  return parsed.success ? parsed.data : defaults;
}

export async function updateConfig(update: LockConfigUpdate): Promise<LockConfig> {
  const fields = Object.entries(update).filter(([, value]) => value !== undefined);
  if (fields.length) await getRedis().hset(CONFIG_KEY, Object.fromEntries(fields.map(([k, v]) => [k, String(v)])));
  return getConfig();
}

/** Back to the env defaults. */
export async function resetConfig(): Promise<LockConfig> {
  await getRedis().del(CONFIG_KEY);
  return getConfig();
}
