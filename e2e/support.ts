import { closeDb } from "@/lib/db";
import { closeRedis } from "@/lib/redis";
import { resetConfig, updateConfig } from "@/lib/sale/config";
import { resetSale } from "@/lib/sale/sale";
import type { LockConfigUpdate } from "@/lib/validations/config";

/** Sets the shared config and starts a new sale on the real stack, then lets the process exit. */
export async function prepareSale(config: LockConfigUpdate, initialStock: number): Promise<void> {
  await resetConfig();
  await updateConfig(config);
  await resetSale({ initialStock });
}

export async function disconnect(): Promise<void> {
  await Promise.allSettled([closeDb(), closeRedis()]);
}
