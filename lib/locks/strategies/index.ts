import type { LockClients } from "../clients";
import type { LockStrategy } from "../types";
import { createAtomic } from "./atomic";
import { createCluster } from "./cluster";
import { createClusterFenced } from "./cluster-fenced";
import { createClusterWait } from "./cluster-wait";
import { createEtcd } from "./etcd";
import { createEtcdSequencer } from "./etcd-sequencer";
import { createEtcdUnfenced } from "./etcd-unfenced";
import { createLocal } from "./local";
import { createNone } from "./none";
import { createPgAdvisory } from "./pg-advisory";
import { createPgAdvisoryPooled } from "./pg-advisory-pooled";
import { createPgAdvisoryXact } from "./pg-advisory-xact";
import { createPgForUpdate } from "./pg-for-update";
import { createPgNowait } from "./pg-nowait";
import { createPgUnfenced } from "./pg-unfenced";
import { createPeerAdvisoryLock } from "./peer-advisory-lock";
import { createPeerRedlock4 } from "./peer-redlock4";
import { createPeerRedlock5 } from "./peer-redlock5";
import { createPeerRedlockUniversal } from "./peer-redlock-universal";
import { createPeerSemaphoreMutex } from "./peer-semaphore-mutex";
import { createPeerSemaphoreRedlockMutex } from "./peer-semaphore-redlock-mutex";
import { createPeerSesamecareRedlock } from "./peer-sesamecare-redlock";
import { createRedlock } from "./redlock";
import { createRedlockFenced } from "./redlock-fenced";
import { createSentinel } from "./sentinel";
import { createSentinelFenced } from "./sentinel-fenced";
import { createSentinelWait } from "./sentinel-wait";
import { createSetnx } from "./setnx";
import { createSetnxNoExpiry } from "./setnx-no-expiry";
import { createTokenFencing } from "./token-fencing";
import { createTokenGetDel } from "./token-get-del";
import { createTokenLua } from "./token-lua";
import { createTokenReentrant } from "./token-reentrant";
import { createTokenWatch } from "./token-watch";
import { createTokenWatchdog } from "./token-watchdog";
import { createZookeeper } from "./zookeeper";
import { createZookeeperSequencer } from "./zookeeper-sequencer";
import { createZookeeperUnfenced } from "./zookeeper-unfenced";

export type StrategyFactory = (clients: LockClients) => LockStrategy;

/**
 * Every strategy by name: the six of the lesson, then `atomic` (no lock needed), then the
 * articles' other lock services (Sentinel, ZooKeeper, etcd) and the locks Node users reach for
 * next (Redis Cluster, Postgres advisory locks), then the pitfall lab's variants, and last the npm
 * lock libraries run as they come (`peer-…`, ../peer-lock.ts). The one list of names
 * (STRATEGY_NAMES) is its keys, in this order.
 */
export const STRATEGY_FACTORIES = {
  none: createNone,
  local: createLocal,
  setnx: createSetnx,
  "token-lua": createTokenLua,
  redlock: (clients) => createRedlock(clients),
  "pg-for-update": createPgForUpdate,
  atomic: createAtomic,
  sentinel: createSentinel,
  "sentinel-wait": createSentinelWait,
  zookeeper: createZookeeper,
  etcd: createEtcd,
  cluster: createCluster,
  "cluster-wait": createClusterWait,
  "pg-advisory": createPgAdvisory,
  "pg-advisory-xact": createPgAdvisoryXact,
  "setnx-no-expiry": createSetnxNoExpiry,
  "token-get-del": createTokenGetDel,
  "token-watch": createTokenWatch,
  "token-watchdog": createTokenWatchdog,
  "token-fencing": createTokenFencing,
  "token-reentrant": createTokenReentrant,
  "pg-nowait": createPgNowait,
  "pg-unfenced": createPgUnfenced,
  "zookeeper-unfenced": createZookeeperUnfenced,
  "etcd-unfenced": createEtcdUnfenced,
  "zookeeper-sequencer": createZookeeperSequencer,
  "etcd-sequencer": createEtcdSequencer,
  "redlock-fenced": createRedlockFenced,
  "sentinel-fenced": createSentinelFenced,
  "cluster-fenced": createClusterFenced,
  "pg-advisory-pooled": createPgAdvisoryPooled,
  "peer-redlock5": createPeerRedlock5,
  "peer-redlock4": createPeerRedlock4,
  "peer-sesamecare-redlock": createPeerSesamecareRedlock,
  "peer-semaphore-mutex": createPeerSemaphoreMutex,
  "peer-semaphore-redlock-mutex": createPeerSemaphoreRedlockMutex,
  "peer-redlock-universal": createPeerRedlockUniversal,
  "peer-advisory-lock": createPeerAdvisoryLock,
} as const satisfies Record<string, StrategyFactory>;

export type StrategyName = keyof typeof STRATEGY_FACTORIES;

export const STRATEGY_NAMES = Object.freeze(Object.keys(STRATEGY_FACTORIES)) as readonly [StrategyName, ...StrategyName[]];

export function isStrategyName(name: string): name is StrategyName {
  return Object.hasOwn(STRATEGY_FACTORIES, name);
}

/** Every strategy built on `clients`, by name. */
export function createStrategies(clients: LockClients): Readonly<Record<StrategyName, LockStrategy>> {
  const entries = STRATEGY_NAMES.map((name) => [name, STRATEGY_FACTORIES[name](clients)] as const);
  return Object.freeze(Object.fromEntries(entries) as Record<StrategyName, LockStrategy>);
}
