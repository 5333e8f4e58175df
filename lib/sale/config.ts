import { getEnv } from "../env";
import { isStrategyName } from "../locks/registry";
import { announceChange } from "../live-signal";
import { getRedis } from "../redis";
import { lockConfigSchema, type LockConfig, type LockConfigUpdate } from "../validations/config";
import { CONFIG_KEY } from "./keys";
import { quiesced } from "./switch";

/**
 * The active strategy and its knobs live in one Redis hash that every instance reads on every
 * purchase, so a switch applies to all instances at once. Fields never set fall back to env.
 */
export function getDefaultConfig(): LockConfig {
  const env = getEnv();
  const strategy = isStrategyName(env.LOCK_STRATEGY) ? env.LOCK_STRATEGY : "token-lua";
  return { strategy, lockTtlMs: env.LOCK_TTL_MS, waitTimeoutMs: env.WAIT_TIMEOUT_MS, workMs: env.WORK_MS, lockDelayMs: env.LOCK_DELAY_MS };
}

/** The config plus the sale's own settings, from the same one read. */
export interface ActiveConfig extends LockConfig {
  /** Lab: the critical section calls a helper that takes the same lock again (reentrancy). */
  readonly nestedLock: boolean;
  /** Bumped by every switch and sale reset; every stock access carries it (lib/sale/switch.ts). */
  readonly epoch: number;
  /** A switch is draining the holders right now. */
  readonly draining: boolean;
  /** Every purchase is recorded on the holder timeline (lib/timeline); off only to measure its cost. */
  readonly recordTimeline: boolean;
}

const NESTED_FIELD = "lab:nested";
const TIMELINE_FIELD = "timeline";
/** The fields a config reset removes; `epoch` stays, or an old holder's epoch could match again. */
const SETTING_FIELDS = ["strategy", "lockTtlMs", "waitTimeoutMs", "workMs", "lockDelayMs", NESTED_FIELD] as const;

export async function getActiveConfig(): Promise<ActiveConfig> {
  const stored = await getRedis().hgetall(CONFIG_KEY);
  return {
    ...configFrom(stored),
    nestedLock: stored[NESTED_FIELD] === "1",
    epoch: Number(stored.epoch ?? 0),
    draining: Number(stored.draining ?? 0) > Date.now(),
    recordTimeline: stored[TIMELINE_FIELD] !== "off",
  };
}

/** Turns the holder timeline's recording on or off for every instance (the bench measures its cost). */
export async function setTimelineRecording(on: boolean): Promise<void> {
  if (on) await getRedis().hdel(CONFIG_KEY, TIMELINE_FIELD);
  else await getRedis().hset(CONFIG_KEY, TIMELINE_FIELD, "off");
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
    lockDelayMs: stored.lockDelayMs ? Number(stored.lockDelayMs) : defaults.lockDelayMs,
  };
  const parsed = lockConfigSchema.safeParse(merged);
  return parsed.success ? parsed.data : defaults;
}

/** Changes the shared config for every instance at once, quiesced (see lib/sale/switch.ts). */
export async function updateConfig(update: LockConfigUpdate): Promise<LockConfig> {
  const fields = Object.entries(update).filter(([, value]) => value !== undefined);
  if (fields.length) {
    await quiesced(() => getRedis().hset(CONFIG_KEY, Object.fromEntries(fields.map(([k, v]) => [k, String(v)]))));
    // The phones and the projector show the strategy and the work: they look again.
    announceChange();
  }
  return getConfig();
}

/** Back to the env defaults (the lab's nested locking included; its faults are the lab's to clear), quiesced. */
export async function resetConfig(): Promise<LockConfig> {
  await quiesced(() => getRedis().hdel(CONFIG_KEY, ...SETTING_FIELDS));
  announceChange();
  return getConfig();
}
