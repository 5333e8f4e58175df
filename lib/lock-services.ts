import { Etcd3 } from "etcd3";
import Redis from "ioredis";
import zookeeper from "node-zookeeper-client";
import { getEnv } from "./env";
import { processSingleton } from "./process-singleton";

/**
 * The clients of the articles' other lock services, created on first use, one per process
 * (lib/process-singleton.ts): the Sentinel-managed Redis primary, the
 * ZooKeeper ensemble and the etcd cluster. A test or benchmark opens its own with `openLockServices`.
 */
export interface LockServices {
  /** The primary the Sentinels name now; ioredis asks them again after a failover. */
  sentinel(): Redis;
  /** A subscriber connection to the same primary, for the lock's release messages. */
  sentinelSubscriber(): Redis;
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
function usable(client: Redis | undefined): Redis | undefined {
  return client && client.status !== "end" ? client : undefined;
}

export function openLockServices(name = "locklab"): LockServices {
  let sentinel: Redis | undefined;
  let subscriber: Redis | undefined;
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
      await Promise.allSettled([sentinel?.quit(), subscriber?.quit()]);
      for (const client of zk.values()) client.then((c) => c.close()).catch(() => {});
      etcd?.close();
    },
  };
}
