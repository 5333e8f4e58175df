import Redlock, { ExecutionError, type Settings } from "redlock";
import { getRedisNodes } from "../../lib/redis";
import type { UnitLock } from "../../lib/purchase/purchase";
import { peerLock } from "./peer-lock";

/**
 * Benchmark peer, not a strategy: node-redlock (`redlock@5.0.0-beta.2`) over the same five Redis
 * nodes and connections as the project's `redlock`. Every buyer calls `acquire` itself and
 * retries on node-redlock's own timer (no queue, no release signal).
 */
export function nodeRedlockPeer(settings: Partial<Settings>): UnitLock {
  const redlock = new Redlock(getRedisNodes(), settings);
  // Every vote against is emitted as an error; losing votes is the contest itself here.
  redlock.on("error", () => {});
  return peerLock({
    name: "node-redlock 5-beta",
    acquire: (key, options) => redlock.acquire([key], options.ttlMs),
    isOutOfRetries: (error) => error instanceof ExecutionError,
  });
}

/** node-redlock 5's defaults: 10 retries, 200 ms apart with ±100 ms jitter (≈ 2 s of trying). */
export const NODE_REDLOCK_DEFAULT: Partial<Settings> = Object.freeze({});
