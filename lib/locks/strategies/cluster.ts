import type { LockClients } from "../clients";
import { createTokenLock } from "../token-lock";

/**
 * token-lua on a Redis Cluster (three primaries, each with one asynchronous replica): the lock
 * lives on the primary of its key's slot. Fails on failover as Sentinel does: a lock the primary
 * granted but had not yet replicated is gone once the cluster promotes the replica, so a second
 * buyer acquires while the first still works. Sharding spreads keys, not safety.
 */
export const createCluster = (clients: LockClients) =>
  createTokenLock(clients, { name: "cluster", safe: true, unlock: "lua", localLine: true, server: "cluster" });
