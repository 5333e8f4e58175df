import { z } from "zod";
import { STRATEGY_NAMES } from "../locks/strategies";

export const lockConfigSchema = z.object({
  strategy: z.enum(STRATEGY_NAMES),
  lockTtlMs: z.number().int().min(1).max(600_000),
  waitTimeoutMs: z.number().int().min(0).max(120_000),
  workMs: z.number().int().min(0).max(60_000),
  /** Chubby's lock-delay for the zookeeper and etcd locks: 0 for none. */
  lockDelayMs: z.number().int().min(0).max(60_000),
});

export type LockConfig = z.infer<typeof lockConfigSchema>;

/** A change to the shared config: any subset of the fields, nothing else. */
export const lockConfigUpdateSchema = lockConfigSchema.partial().strict();
export type LockConfigUpdate = z.infer<typeof lockConfigUpdateSchema>;
