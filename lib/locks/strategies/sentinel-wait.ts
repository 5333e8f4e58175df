import type { LockClients } from "../clients";
import { createTokenLock } from "../token-lock";

/**
 * sentinel plus `WAIT 1`: the lock counts only once the replica has acknowledged it, so a
 * failover after the acquire keeps it. Still fails when the replica that acknowledged is not the
 * one promoted, or loses the write itself: WAIT makes loss unlikely, not impossible.
 */
export const createSentinelWait = (clients: LockClients) =>
  createTokenLock(clients, { name: "sentinel-wait", safe: true, unlock: "lua", localLine: true, server: "sentinel", replicaAck: true });
