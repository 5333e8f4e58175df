/**
 * LockClients wired to a test's own servers (./servers.ts): the Redis Cluster's client and its
 * release signals, a pool straight to Postgres, a pool through PgBouncer. Whatever a strategy asks
 * for beyond those throws, so a test cannot lean on a server it did not start.
 */
import type { Cluster } from "ioredis";
import type { Pool } from "pg";
import { createClusterClient, usableCluster, type LockServices } from "@/lib/lock-services";
import type { LockClients } from "@/lib/locks/clients";
import { createReleaseSignals } from "@/lib/locks/release-signal";

export interface ServerLockClients extends LockClients {
  close(): Promise<void>;
}

export function serverLockClients(servers: { readonly clusterNodes?: readonly string[]; readonly lockPool?: Pool; readonly bouncerPool?: Pool }): ServerLockClients {
  const refuse = (what: string) => (): never => {
    throw new Error(`${what}: not started by this test`);
  };
  let cluster: Cluster | undefined;
  const redisCluster = () => {
    if (!servers.clusterNodes) return refuse("the Redis Cluster")();
    // As the app does (lib/lock-services.ts): a client ioredis has ended, or left closed for good
    // after every node was down, is replaced by a new one on the next call.
    cluster = usableCluster(cluster) ?? createClusterClient(servers.clusterNodes, "servers-test");
    return cluster;
  };
  const services = {
    sentinel: refuse("Sentinel"),
    sentinelSubscriber: refuse("Sentinel"),
    redisCluster,
    zookeeper: refuse("ZooKeeper"),
    etcd: refuse("etcd"),
    close: async () => void (await cluster?.quit()),
  } satisfies LockServices;
  const refusingSignals = createReleaseSignals(refuse("Redis node 1's release channel"));
  return {
    redis: refuse("Redis node 1"),
    redisNodes: refuse("the Redis nodes"),
    watchConnection: refuse("Redis node 1"),
    lockPool: () => servers.lockPool ?? refuse("Postgres")(),
    bouncerPool: () => servers.bouncerPool ?? refuse("PgBouncer")(),
    releases: refusingSignals,
    services: () => services,
    sentinelReleases: refusingSignals,
    clusterReleases: createReleaseSignals(redisCluster),
    close: () => services.close(),
  };
}
