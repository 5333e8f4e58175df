import { Etcd3 } from "etcd3";
import calculateSlot from "cluster-key-slot";
import Redis, { Cluster } from "ioredis";
import zookeeper from "node-zookeeper-client";
import { getEnv } from "./env";
import { processSingleton } from "./process-singleton";

/**
 * The clients of the articles' other lock services, created on first use, one per process
 * (lib/process-singleton.ts): the Sentinel-managed Redis primary, the Redis Cluster, the
 * ZooKeeper ensemble and the etcd cluster. A test or benchmark opens its own with `openLockServices`.
 */
export interface LockServices {
  /** The primary the Sentinels name now; ioredis asks them again after a failover. */
  sentinel(): Redis;
  /** A subscriber connection to the same primary, for the lock's release messages. */
  sentinelSubscriber(): Redis;
  /**
   * The Redis Cluster (three primaries, three replicas): ioredis sends each command to the primary
   * of its key's slot and follows the cluster through a failover. It also carries the cluster
   * locks' release messages (it subscribes on a connection of its own; a PUBLISH reaches every node).
   */
  redisCluster(): Cluster;
  /** A connected ZooKeeper client whose sessions last `sessionTimeoutMs` (one per timeout). */
  zookeeper(sessionTimeoutMs: number): Promise<zookeeper.Client>;
  etcd(): Etcd3;
  close(): Promise<void>;
}

const split = (address: string) => {
  const [host, port] = address.split(":");
  return { host: host ?? "127.0.0.1", port: Number(port) };
};

function sentinelClient(connectionName: string): Redis {
  const env = getEnv();
  const client = new Redis({
    sentinels: env.SENTINELS.map(split),
    name: env.SENTINEL_MASTER,
    connectionName,
    // The same fail-fast settings as the stock's nodes (lib/redis.ts): no replayed writes.
    maxRetriesPerRequest: 1,
    autoResendUnfulfilledCommands: false,
    commandTimeout: 2000,
    connectTimeout: 1000,
    sentinelMaxConnections: 3,
    // Reconnect as soon as the Sentinels announce a new primary, and when the old one, now a
    // replica, refuses a write.
    failoverDetector: true,
    reconnectOnError: (error) => (error.message.startsWith("READONLY") ? 2 : false),
    retryStrategy: (attempt: number) => Math.min(50 * attempt, 500),
    sentinelRetryStrategy: (attempt: number) => Math.min(100 * attempt, 1000),
  });
  client.on("error", () => {});
  return client;
}

/**
 * A client of the Redis Cluster whose nodes (any of them: the client learns the slots from the
 * first that answers) are `nodes`, with the stock nodes' fail-fast rules (lib/redis.ts) carried
 * over to a cluster. The app keeps one (below); a test may open its own.
 *
 * No replayed writes: a command sent and not answered when its node's connection closed fails
 * (retryDelayOnFailover 0), rather than being sent again to whichever node owns the slot after a
 * failover, as ioredis does by default. A command a node refused without running it (CLUSTERDOWN
 * while a failover elects, TRYAGAIN, MOVED, ASK) is sent again or redirected: that replays nothing.
 * The slot map is read again every second, so a failover is followed even before a MOVED says so.
 * When no node answers, the client gives up after a few tries and fails what it had queued (503,
 * not a hung buyer); the next call opens a new client.
 */
export function createClusterClient(nodes: readonly string[], connectionName: string): Cluster {
  const client = new Cluster(nodes.map(split), {
    redisOptions: { connectionName, maxRetriesPerRequest: 1, autoResendUnfulfilledCommands: false, commandTimeout: 2000, connectTimeout: 1000 },
    scaleReads: "master",
    retryDelayOnFailover: 0,
    slotsRefreshTimeout: 1000,
    slotsRefreshInterval: 1000,
    clusterRetryStrategy: (attempt: number) => (attempt > 3 ? null : 100 * attempt),
  });
  client.on("error", () => {});
  return client;
}

/**
 * The connection `cluster` keeps to the primary of `key`'s slot, as far as its slot map knows
 * (undefined before it has one): where a command that must follow another on the same connection
 * goes — WAIT, which counts the replicas that have the writes sent before it on its connection.
 */
export function clusterPrimaryFor(cluster: Cluster, key: string): Redis | undefined {
  const owner = cluster.slots[calculateSlot(key)]?.[0];
  return owner === undefined ? undefined : cluster.nodes("all").find((node) => `${node.options.host}:${node.options.port}` === owner);
}

/** Resolves once connected; rejects with the client closed when the ensemble does not answer in time. */
function connectZookeeper(sessionTimeoutMs: number, connectTimeoutMs: number): Promise<zookeeper.Client> {
  const client = zookeeper.createClient(getEnv().ZOOKEEPER_HOSTS.join(","), { sessionTimeout: sessionTimeoutMs, spinDelay: 100, retries: 0 });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      client.close();
      reject(new Error(`no ZooKeeper member answered within ${connectTimeoutMs} ms`));
    }, connectTimeoutMs);
    client.once("connected", () => {
      clearTimeout(timer);
      resolve(client);
    });
    client.connect();
  });
}

/** A ZooKeeper session nobody asked for this long is closed (see openLockServices). */
const SESSION_RETIRE_MS = 30_000;
/** One etcd call on one member: three attempts fit in the 2 s a lock-service call may take (lib/locks/service-call.ts). */
const ETCD_ATTEMPT_MS = 600;


/** The app's own clients of the lock services. */
export function getLockServices(): LockServices {
  return processSingleton("lock-services", () => openLockServices());
}

/** The client, unless ioredis has ended it for good. */
function usable<T extends Redis | Cluster>(client: T | undefined): T | undefined {
  return client && client.status !== "end" ? client : undefined;
}

/**
 * The cluster client, unless it is ended or stuck closed. After every node was down, ioredis'
 * Cluster client can stay in "close" for good — neither reconnecting nor ended — and queue every
 * command in its offline queue, where no command timeout runs: a lock call then waited forever (the
 * servers suite, 4 runs in 6). Such a client is disconnected (failing what it queued) and replaced.
 */
export function usableCluster(client: Cluster | undefined): Cluster | undefined {
  if (!client || client.status === "end") return undefined;
  if (client.status !== "close") return client;
  client.disconnect();
  return undefined;
}

export function openLockServices(name = "locklab"): LockServices {
  let sentinel: Redis | undefined;
  let subscriber: Redis | undefined;
  let cluster: Cluster | undefined;
  let etcd: Etcd3 | undefined;
  const zk = new Map<number, Promise<zookeeper.Client>>();
  const zkAskedAt = new Map<number, number>();
  /**
   * One session per timeout asked for, but only while it is asked for: a strategy or TTL switch
   * leaves the old timeout's session unused, and a session left open keeps its heartbeats going
   * for as long as the instance runs. One not asked for in SESSION_RETIRE_MS is closed (a switch
   * has drained its holders long before).
   */
  const retireIdleSessions = (now: number) => {
    for (const [timeout, askedAt] of zkAskedAt) {
      if (now - askedAt < SESSION_RETIRE_MS) continue;
      const client = zk.get(timeout);
      zk.delete(timeout);
      zkAskedAt.delete(timeout);
      client?.then((c) => c.close()).catch(() => {});
    }
  };
  return {
    // ioredis ends a Sentinel client for good when a failover's reconnect races its own
    // reconnect ("Connection is closed."): such a client is replaced by a new one.
    sentinel: () => (sentinel = usable(sentinel) ?? sentinelClient(`${name}-sentinel`)),
    sentinelSubscriber() {
      subscriber = usable(subscriber);
      if (!subscriber) {
        subscriber = sentinelClient(`${name}-sentinel-sub`);
        subscriber.options.maxRetriesPerRequest = null;
        subscriber.options.commandTimeout = undefined;
      }
      return subscriber;
    },
    // A cluster client that found no node answering has ended: the next call opens a new one.
    redisCluster: () => (cluster = usableCluster(cluster) ?? createClusterClient(getEnv().REDIS_CLUSTER_NODES, `${name}-cluster`)),
    zookeeper(sessionTimeoutMs) {
      const askedAt = Date.now();
      zkAskedAt.set(sessionTimeoutMs, askedAt);
      retireIdleSessions(askedAt);
      const known = zk.get(sessionTimeoutMs);
      if (known) return known;
      const connecting = connectZookeeper(sessionTimeoutMs, 3000).then((client) => {
        // An expired session never comes back: the next caller opens a new one.
        client.once("expired", () => {
          if (zk.get(sessionTimeoutMs) === connecting) zk.delete(sessionTimeoutMs);
          client.close();
        });
        return client;
      });
      connecting.catch(() => zk.delete(sessionTimeoutMs));
      zk.set(sessionTimeoutMs, connecting);
      return connecting;
    },
    etcd: () =>
      (etcd ??= new Etcd3({
        hosts: getEnv().ETCD_ENDPOINTS.map((address) => `http://${address}`),
        dialTimeout: 1000,
        // Each attempt on one member is bounded, so a member that hangs (cut off from its peers, or
        // catching up after a heal) fails fast as DEADLINE_EXCEEDED: etcd3 retries on another member
        // (3 attempts) and opens that member's own breaker, and the buyer is served by the quorum.
        defaultCallOptions: (context) => (context.isStream ? {} : { deadline: Date.now() + ETCD_ATTEMPT_MS }),
      })),
    async close() {
      await Promise.allSettled([sentinel?.quit(), subscriber?.quit(), cluster?.quit()]);
      for (const client of zk.values()) client.then((c) => c.close()).catch(() => {});
      etcd?.close();
    },
  };
}
