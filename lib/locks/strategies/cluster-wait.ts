import type { LockClients } from "../clients";
import { createTokenLock } from "../token-lock";

/**
 * cluster plus `WAIT 1` on the slot's primary: the lock counts only once the shard's replica has
 * acknowledged it, so a failover right after the acquire keeps it. Still a lease without a fence
 * (a holder paused past the TTL overlaps the next), and WAIT is no consensus: the replica's copy is
 * not durable and a failover may still promote a replica that lost it — loss unlikely, not impossible.
 */
export const createClusterWait = (clients: LockClients) =>
  createTokenLock(clients, { name: "cluster-wait", safe: true, unlock: "lua", localLine: true, server: "cluster", replicaAck: true });
