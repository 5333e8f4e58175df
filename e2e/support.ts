import { closeDb } from "@/lib/db";
import { closeRedis } from "@/lib/redis";

/** Sets the shared config and starts a new sale on the real stack (shared with the Vitest suites). */
export { prepareSale } from "../tests/support/stack";

/** Closes the Redis and Postgres clients so the Playwright worker can exit. */
export async function disconnect(): Promise<void> {
  await Promise.allSettled([closeDb(), closeRedis()]);
}
