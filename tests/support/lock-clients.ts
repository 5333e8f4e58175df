/**
 * Lock clients of the test's own — new connections to the stack's real Redis nodes, Postgres (also
 * through PgBouncer) and lock services, none of the app's globals — so a strategy built by its
 * factory is tested in this process alone.
 */
import type Redis from "ioredis";
import { createLockPool } from "@/lib/db";
import { openLockServices } from "@/lib/lock-services";
import { getEnv } from "@/lib/env";
import type { LockClients } from "@/lib/locks/clients";
import { createReleaseSignals } from "@/lib/locks/release-signal";
import { createRedisClient } from "@/lib/redis";

export interface TestLockClients extends LockClients {
  close(): Promise<void>;
}

export function openLockClients(): TestLockClients {
  const nodes = getEnv().REDIS_NODES.map((address, index) => createRedisClient(address, `contract-${index + 1}`));
  const subscribers = new Map<number, Redis>();
  const subscriberFor = (index: number) => {
    let subscriber = subscribers.get(index);
    if (!subscriber) {
      subscriber = nodes[index]!.duplicate({ maxRetriesPerRequest: null, commandTimeout: undefined, enableAutoPipelining: false });
      subscriber.on("error", () => {});
      subscribers.set(index, subscriber);
    }
    return subscriber;
  };
  let watch: Redis | undefined;
  const pool = createLockPool(20);
  const bouncerPool = createLockPool(20, getEnv().PGBOUNCER_URL);
  const services = openLockServices("contract");
  return {
    redis: () => nodes[0]!,
    redisNodes: () => nodes,
    watchConnection: () => {
      if (!watch) {
        watch = nodes[0]!.duplicate({ enableAutoPipelining: false });
        watch.on("error", () => {});
      }
      return watch;
    },
    lockPool: () => pool,
    bouncerPool: () => bouncerPool,
    releases: createReleaseSignals(subscriberFor),
    services: () => services,
    sentinelReleases: createReleaseSignals(() => services.sentinelSubscriber()),
    clusterReleases: createReleaseSignals(() => services.redisCluster()),
    async close() {
      await services.close();
      await Promise.allSettled([...nodes, ...subscribers.values(), watch].map((client) => client?.quit()));
      await Promise.allSettled([pool.end(), bouncerPool.end()]);
    },
  };
}
