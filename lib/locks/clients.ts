import type Redis from "ioredis";
import type { Pool } from "pg";
import type { LockServices } from "../lock-services";
import type { ReleaseSignals } from "./release-signal";

/**
 * What a strategy needs from the outside world, handed to its factory (as node-redlock takes its
 * clients): the registry wires the app's own clients (lib/redis.ts, lib/db.ts); a test or a
 * benchmark may wire others. Getters, not clients, so building a strategy opens no connection.
 */
export interface LockClients {
  /**
   * Node 1: single-node locks, fencing counters and their release channel. The app wires its
   * serial connection, the one the critical section writes the stock on (lib/redis.ts).
   */
  readonly redis: () => Redis;
  /** Every Redis node, in REDIS_NODES order: Redlock's independent masters. */
  readonly redisNodes: () => readonly Redis[];
  /** A node-1 connection used for nothing but WATCH/MULTI/EXEC (WATCH belongs to its connection). */
  readonly watchConnection: () => Redis;
  /**
   * The Postgres locks' own pool straight to Postgres (the row lock, the session advisory lock):
   * holders and waiters, apart from the order inserts.
   */
  readonly lockPool: () => Pool;
  /** The same, through PgBouncer in transaction mode: the advisory locks that go through a pooler. */
  readonly bouncerPool: () => Pool;
  /** Wakes waiters when a lock is released (pub/sub), instead of a fixed-interval poll. */
  readonly releases: ReleaseSignals;
  /** The articles' other lock services: the Sentinel-managed primary, the Redis Cluster, ZooKeeper, etcd. */
  readonly services: () => LockServices;
  /** Release messages on the Sentinel-managed primary (its locks publish there). */
  readonly sentinelReleases: ReleaseSignals;
  /** Release messages on the Redis Cluster (a PUBLISH on the slot's primary reaches every node). */
  readonly clusterReleases: ReleaseSignals;
}
