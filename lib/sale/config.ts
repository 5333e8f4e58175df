import { getEnv } from "../env";
import { isStrategyName } from "../locks/registry";
import { getRedis } from "../redis";
import { lockConfigSchema, type LockConfig, type LockConfigUpdate } from "../validations/config";
import { parseFaults, type FaultDelays } from "../lab/faults";
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

/** The config plus the lab's settings (faults, nested locking), from the same one read. */
export interface ActiveConfig extends LockConfig {
  readonly faults: FaultDelays;
  /** Lab: the critical section calls a helper that takes the same lock again (reentrancy). */
  readonly nestedLock: boolean;
}

const NESTED_FIELD = "lab:nested";

export async function getActiveConfig(): Promise<ActiveConfig> {
  const stored = await getRedis().hgetall(CONFIG_KEY);
  return { ...configFrom(stored), faults: parseFaults(stored), nestedLock: stored[NESTED_FIELD] === "1" };
}

export async function getConfig(): Promise<LockConfig> {
  return configFrom(await getRedis().hgetall(CONFIG_KEY));
}

export async function setNestedLock(nested: boolean): Promise<void> {
  if (nested) await getRedis().hset(CONFIG_KEY, NESTED_FIELD, "1");
  else await getRedis().hdel(CONFIG_KEY, NESTED_FIELD);
}

function configFrom(stored: Record<string, string>): LockConfig {
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

/** Back to the env defaults (lab faults and settings included). */
export async function resetConfig(): Promise<LockConfig> {
  await getRedis().del(CONFIG_KEY);
  return getConfig();
}
