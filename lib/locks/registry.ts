import { getBouncerPool, getLockPool } from "../db";
import { getLockServices } from "../lock-services";
import { getRedisNodes, getSerialConnection, getSubscriber, getWatchConnection } from "../redis";
import type { LockClients } from "./clients";
import { createReleaseSignals } from "./release-signal";
import { createStrategies, type StrategyName } from "./strategies";
import type { LockStrategy } from "./types";

export { STRATEGY_NAMES, isStrategyName, type StrategyName } from "./strategies";

/** The app's own clients (one per external system, created on first use). */
export function appLockClients(): LockClients {
  return {
    // The single-node locks share node 1's serial connection with the critical section (lib/redis.ts).
    redis: getSerialConnection,
    redisNodes: getRedisNodes,
    watchConnection: getWatchConnection,
    lockPool: getLockPool,
    bouncerPool: getBouncerPool,
    releases: createReleaseSignals(getSubscriber),
    services: getLockServices,
    sentinelReleases: createReleaseSignals(() => getLockServices().sentinelSubscriber()),
    clusterReleases: createReleaseSignals(() => getLockServices().redisCluster()),
  };
}

let built: Readonly<Record<StrategyName, LockStrategy>> | undefined;
const strategies = () => (built ??= createStrategies(appLockClients()));

/** The strategy called `name`, wired to the app's clients. */
export function getStrategy(name: StrategyName): LockStrategy {
  return strategies()[name];
}

export function listStrategies(): readonly LockStrategy[] {
  return Object.values(strategies());
}
