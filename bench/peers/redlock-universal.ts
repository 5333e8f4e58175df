import { IoredisAdapter, LockAcquisitionError, createRedlock, type CreateRedlockConfig } from "redlock-universal";
import { getRedisNodes } from "../../lib/redis";
import type { UnitLock } from "../../lib/purchase/purchase";
import { peerLock } from "./peer-lock";

/**
 * Benchmark peer, not a strategy (the lab's is `peer-redlock-universal`): redlock-universal's
 * Redlock (`redlock-universal@0.8.5`) over the same five Redis nodes and connections as the
 * project's `redlock`, one `IoredisAdapter` per client, a `createRedlock` per buyer. Every buyer
 * retries on the library's own timer, with no jitter; each try waits for every node's answer, and
 * a lost try deletes its votes before the next. Its scripts are loaded with SCRIPT LOAD, not
 * defined on the clients.
 */
export type RedlockUniversalSettings = Pick<CreateRedlockConfig, "retryAttempts" | "retryDelay">;

export function redlockUniversalPeer(settings: RedlockUniversalSettings): UnitLock {
  const adapters = getRedisNodes().map((node) => new IoredisAdapter(node));
  return peerLock({
    name: "redlock-universal",
    async acquire(key, options) {
      const lock = createRedlock({ adapters, key, ttl: options.ttlMs, ...settings });
      const handle = await lock.acquire();
      return { release: () => lock.release(handle) };
    },
    isOutOfRetries: (error) => error instanceof LockAcquisitionError,
  });
}

/** redlock-universal's defaults for a Redlock: 3 retries, 200 ms apart, no jitter (≈ 0.6 s of trying). */
export const REDLOCK_UNIVERSAL_DEFAULT: RedlockUniversalSettings = Object.freeze({});
