import { ExecutionError, Redlock, type Settings } from "@sesamecare-oss/redlock";
// Not re-exported by the package's index; the deep path is the library's own module.
import { ensureCommands } from "@sesamecare-oss/redlock/build/scripts";
import { getRedisNodes } from "../../lib/redis";
import type { UnitLock } from "../../lib/purchase/purchase";
import { peerLock } from "./peer-lock";

/**
 * Benchmark peer, not a strategy: `@sesamecare-oss/redlock`, the maintained fork of node-redlock 5,
 * over the same five Redis nodes and connections as the project's `redlock`. It waits as
 * node-redlock 5 does: an attempt is decided once a majority has answered, then retried on its
 * own timer.
 */
export function sesamecareRedlockPeer(settings: Settings): UnitLock {
  const redlock = new Redlock(getRedisNodes(), settings);
  // Every vote against is emitted as an error; losing votes is the contest itself here.
  redlock.on("error", () => {});
  return peerLock({
    name: "@sesamecare-oss/redlock",
    // Left to itself it defines its scripts at its first acquire, amid the buyers' commands.
    prepare: () => getRedisNodes().forEach(ensureCommands),
    acquire: (key, options) => redlock.acquire([key], options.ttlMs),
    isOutOfRetries: (error) => error instanceof ExecutionError,
  });
}

/** Its defaults, node-redlock 5's: 10 retries, 200 ms apart with ±100 ms jitter (≈ 2 s of trying). */
export const SESAMECARE_REDLOCK_DEFAULT: Settings = Object.freeze({});
