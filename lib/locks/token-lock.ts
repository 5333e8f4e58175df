import { randomUUID } from "node:crypto";
import type { LockClients } from "./clients";
import { contend } from "./contend";
import { leaseEnd, now } from "./lease";
import { lineLetGo, lineLock, withLocalLine } from "./local-line";
import { releaseChannel } from "./release-signal";
import { ACQUIRED, lockScripts } from "./scripts";
import { holdSharedLock, kindsOf, type SharedLock } from "./shared-lock";
import { lockKey, storeFenceKey } from "./keys";
import type { Cluster, Redis } from "ioredis";
import { clusterPrimaryFor } from "../lock-services";
import { LockUnavailableError, ReplicaUnconfirmedError, type LockOptions, type LockStrategy } from "./types";

/**
 * The token lock on Redis node 1 and its variants: `SET key token NX PX ttl` with a random token
 * per holder, woken on release by pub/sub. The same lock runs on a Sentinel-managed primary and on
 * the Redis Cluster (each script touches one key, so it runs on that key's slot's primary). The variants differ in how they unlock, whether a
 * watchdog renews the lock, whether each acquisition carries a fencing token, and whether the
 * instance's buyers line up locally first (./local-line.ts).
 */
export interface TokenLockVariant {
  readonly name: string;
  readonly safe: boolean;
  readonly lab?: boolean;
  /** `lua`: atomic compare-and-delete; `get-del`: GET, compare, DEL as separate commands; `watch`: WATCH/GET/MULTI/DEL/EXEC. */
  readonly unlock: "lua" | "get-del" | "watch";
  /** Renew every TTL/3 while the holder works, and make it stop before writing if a renewal fails. */
  readonly watchdog?: boolean;
  /** Hand out a fencing token (a Redis counter) with every acquisition. */
  readonly fencing?: boolean;
  /** Line this instance's buyers up locally, so only the head contends in Redis. */
  readonly localLine: boolean;
  /**
   * Where the lock lives: Redis node 1 (default), the primary the Sentinels name now, or the Redis
   * Cluster's primary of the lock key's slot.
   */
  readonly server?: "node-1" | "sentinel" | "cluster";
  /** The lock counts only once `WAIT 1` says a replica has it (Redisson's plain lock does this). */
  readonly replicaAck?: boolean;
  /**
   * Take the fencing token from a counter on node 1, the stock's own node, once the lock is had:
   * for a lock whose own server cannot count for everyone (a Sentinel-managed primary that may be
   * one of two after a split brain, each with its own counter).
   */
  readonly fenceFromStore?: boolean;
}

/** How long an acquire waits for a replica to confirm the lock before giving up as unavailable. */
export const REPLICA_ACK_MS = 200;

export function createTokenLock(clients: LockClients, variant: TokenLockVariant): LockStrategy {
  const kinds = kindsOf(variant.name);
  return {
    name: variant.name,
    safe: variant.safe,
    lab: variant.lab,
    localLine: variant.localLine ? (handsOn(variant) ? "hand-off" : "queue") : undefined,
    ...(variant.localLine && { whenLetGo: (resource: string) => lineLetGo(resource) }),
    // A lock is a write: only a write shows the client is on the primary the Sentinels name now (a
    // replica answers a ping too). One that reaches a demoted primary gets READONLY, and the client
    // reconnects through the Sentinels.
    ...(variant.server === "sentinel" && {
      readiness: () => [["sentinel primary", () => clients.services().sentinel().set("locklab:ready:sentinel", "1", "PX", 5000)]] as const,
    }),
    // Every slot served (a shard with no primary left stops the whole cluster), and a primary takes a write.
    ...(variant.server === "cluster" && {
      readiness: () => [["redis cluster", () => clusterServes(clients.services().redisCluster())]] as const,
    }),
    withLock(resource, options, critical) {
      const kind = kinds(options);
      if (!variant.localLine) return holdSharedLock(options, tokenLock(clients, resource, options, variant, kind), critical);
      return withLocalLine(resource, options, lineLock(kind, () => tokenLock(clients, resource, options, variant, kind)), critical);
    },
  };
}

/**
 * The lab's unlock variants must really unlock every time for their race to show, and every
 * fenced write must carry a token of its own acquisition: only the plain token lock hands on.
 */
const handsOn = (variant: TokenLockVariant) => variant.unlock === "lua" && !variant.fencing && !variant.fenceFromStore && !variant.watchdog;

/** The server a variant keeps its lock on, and what wakes its waiters. */
function lockServer(clients: LockClients, variant: TokenLockVariant): { server: Redis | Cluster; releases: LockClients["releases"] } {
  if (variant.server === "sentinel") return { server: clients.services().sentinel(), releases: clients.sentinelReleases };
  if (variant.server === "cluster") return { server: clients.services().redisCluster(), releases: clients.clusterReleases };
  return { server: clients.redis(), releases: clients.releases };
}

async function clusterServes(cluster: Cluster): Promise<void> {
  const info = String(await cluster.cluster("INFO"));
  if (!/^cluster_state:ok\r?$/m.test(info)) throw new Error(`the cluster says ${/^cluster_state:\w+/m.exec(info)?.[0] ?? "nothing"}`);
  await cluster.set("locklab:ready:cluster", "1", "PX", 5000);
}

function tokenLock(clients: LockClients, resource: string, options: LockOptions, variant: TokenLockVariant, kind: string): SharedLock {
  const { server, releases } = lockServer(clients, variant);
  const redis = lockScripts(server);
  const key = lockKey(resource);
  const token = randomUUID();
  const channel = releaseChannel(resource);
  let fencingToken: number | undefined;
  return {
    kind,
    handOn: handsOn(variant),
    // Every release is one script on the lock's server connection (the unlock variants' are not).
    ...(variant.unlock === "lua" && { releasesOn: server }),
    async acquire(deadline) {
      let sentAt = now();
      await contend({ resource, deadline, waitTimeoutMs: options.waitTimeoutMs, releases }, async () => {
        sentAt = now();
        if (variant.fencing) {
          const answer = await redis.acquireFencedLock(key, `fence:${resource}`, token, options.ttlMs);
          if (answer > 0) {
            fencingToken = answer;
            return { acquired: true };
          }
          const holderTtlMs = -10 - answer;
          return { acquired: false, holderTtlMs: holderTtlMs < 0 ? Infinity : holderTtlMs };
        }
        const answer = await redis.acquireTokenLock(key, token, options.ttlMs);
        if (answer === ACQUIRED && variant.replicaAck) await confirmOnReplica(server, key, token, channel, redis);
        if (answer === ACQUIRED) return { acquired: true };
        return { acquired: false, holderTtlMs: answer < 0 ? Infinity : answer };
      });
      if (variant.fenceFromStore) fencingToken = await clients.redis().incr(storeFenceKey(resource));
      return leaseEnd(sentAt, options.ttlMs);
    },
    release: () => {
      if (variant.unlock === "get-del") return releaseGetThenDel(clients, key, token, channel, options);
      if (variant.unlock === "watch") return releaseWatched(clients, key, token, channel, options);
      return redis.releaseTokenLock(key, token, channel).then((released) => released === 1);
    },
    ...(variant.watchdog && {
      renew: async () => {
        await options.onStep?.("before-renew");
        return (await redis.renewTokenLock(key, token, options.ttlMs)) === 1;
      },
    }),
    ...((variant.fencing || variant.fenceFromStore) && { fencingToken: () => fencingToken }),
  };
}

/**
 * `WAIT 1`: the lock counts only once a replica has acknowledged it, so a failover right after
 * the acquire does not forget it. What WAIT cannot promise: the replica may still lose the write
 * (it is not durable there either), a failover may promote another replica that did not ack, and
 * a lock taken after WAIT timed out on the old primary is released here but may reach the replica.
 */
async function confirmOnReplica(server: Redis | Cluster, key: string, token: string, channel: string, redis: ReturnType<typeof lockScripts>): Promise<void> {
  // WAIT has no key: on a cluster it goes to the connection the lock's write went on, the slot's primary's.
  const primary = server.isCluster ? clusterPrimaryFor(server as Cluster, key) : (server as Redis);
  if (!primary) throw new LockUnavailableError(`the cluster client knows no primary for ${key} yet`);
  const acks = await primary.wait(1, REPLICA_ACK_MS);
  if (acks >= 1) return;
  await redis.releaseTokenLock(key, token, channel).catch(() => undefined);
  throw new ReplicaUnconfirmedError(key, REPLICA_ACK_MS);
}

/** Unsafe on purpose: between the GET and the DEL the lock can expire and be taken by another. */
async function releaseGetThenDel(clients: LockClients, key: string, token: string, channel: string, options: LockOptions): Promise<boolean> {
  const redis = clients.redis();
  if ((await redis.get(key)) !== token) return false;
  await options.onStep?.("before-release-del");
  await redis.del(key);
  await redis.publish(channel, "1");
  return true;
}

/** WATCH makes the DEL conditional: EXEC does nothing if the lock changed after the GET. */
async function releaseWatched(clients: LockClients, key: string, token: string, channel: string, options: LockOptions): Promise<boolean> {
  // WATCH belongs to a connection; this one is used for nothing else.
  const connection = clients.watchConnection();
  await connection.watch(key);
  if ((await connection.get(key)) !== token) {
    await connection.unwatch();
    return false;
  }
  await options.onStep?.("before-release-del");
  const result = await connection.multi().del(key).publish(channel, "1").exec();
  return result !== null;
}
