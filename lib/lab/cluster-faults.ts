import Redis from "ioredis";
import { getEnv } from "../env";
import { getLockServices } from "../lock-services";
import { lockKey } from "../locks/keys";
import { SKU } from "../sale/keys";
import { stackControl } from "../stack/control";
import { recordFault } from "../timeline/faults";

/**
 * The lab's Redis Cluster faults, on the shard that owns the lock's key: holding replication back
 * on its replica, killing its primary and waiting until the cluster has promoted the replica. The
 * shard is asked of the stack runner each time (GET /redis-cluster/owner/<key>): after a case's
 * failover the old replica is the primary, and the next case fails over the other way.
 */
interface Shard {
  readonly slot: number;
  readonly primary: number | null;
  readonly replicas: readonly number[];
}

const owner = () => stackControl<Shard>(`/redis-cluster/owner/${encodeURIComponent(lockKey(SKU))}`, "GET");

function address(member: number): string {
  const addr = getEnv().REDIS_CLUSTER_NODES[member - 1];
  if (!addr) throw new Error(`no Redis Cluster member ${member} in REDIS_CLUSTER_NODES`);
  return addr;
}

/** One command on one member over a connection of its own (no cluster redirection: the member itself answers). */
async function onMember<T>(member: number, task: (client: Redis) => Promise<T>): Promise<T> {
  const [host, port] = address(member).split(":");
  const client = new Redis({ host, port: Number(port), lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 1000, commandTimeout: 2000 });
  client.on("error", () => {});
  try {
    return await task(client);
  } finally {
    client.disconnect();
  }
}

/**
 * `CLIENT PAUSE ms WRITE` on the replicas of the lock key's shard: each still talks to its peers on
 * the cluster bus, but applies nothing of its primary's replication stream meanwhile, so a lock
 * the primary grants now is not on the replica when the primary dies. `ms` only bounds it (should
 * the runner die): `clusterFailOver` lets go once the primary is dead.
 */
export async function holdClusterReplication(ms: number): Promise<void> {
  const shard = await owner();
  await Promise.all(shard.replicas.map((member) => onMember(member, (c) => c.call("CLIENT", "PAUSE", String(ms), "WRITE"))));
  await recordFault("fault-start", `replication held back on Redis Cluster node ${shard.replicas.join(", ")} (the lock's shard) until its primary dies`).catch(() => {});
}

/** Ends any replication hold on every cluster member that answers (before each case, and after a failover). */
export async function endClusterReplicationHold(): Promise<void> {
  await Promise.all(getEnv().REDIS_CLUSTER_NODES.map((_, index) => onMember(index + 1, (c) => c.call("CLIENT", "UNPAUSE")).catch(() => undefined)));
}

/** The lock key gone from the cluster: a case never starts with the last one's lock. */
export async function clearClusterLock(): Promise<void> {
  await getLockServices().redisCluster().del(lockKey(SKU)).catch(() => undefined);
}

/**
 * SIGKILLs the primary of the lock key's shard, lets its replica go once it has seen the link
 * break (what it had received but not applied is dropped with the link, not applied late), waits
 * until the cluster serves the key's slot from another member, then starts the killed node again:
 * it rejoins as the new primary's replica (its nodes.conf survives), so a lock that waits for a
 * replica can be had again.
 */
export async function clusterFailOver(timeoutMs: number): Promise<void> {
  const before = await owner();
  if (before.primary === null) throw new Error(`no Redis Cluster primary serves slot ${before.slot}`);
  const dead = before.primary;
  try {
    await stackControl(`/redis-cluster/${dead}/kill`);
    await Promise.all(before.replicas.map((member) => onMember(member, async (c) => {
      const deadline = Date.now() + 3000;
      while (Date.now() < deadline && /master_link_status:up/.test(String(await c.info("replication").catch(() => "")))) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }).catch(() => undefined)));
  } finally {
    await endClusterReplicationHold();
  }
  await recordFault("fault-end", `replication let go on Redis Cluster node ${before.replicas.join(", ")}`).catch(() => {});
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const now = await owner().catch(() => undefined);
    if (now?.primary != null && now.primary !== dead) break;
    if (Date.now() > deadline) throw new Error(`the Redis Cluster promoted no replica of node ${dead} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stackControl(`/redis-cluster/${dead}/start`);
}
