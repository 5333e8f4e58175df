import type { LockClients } from "../clients";
import { createTokenLock } from "../token-lock";

/**
 * Lab variant: the cluster lock, fenced by a token from the stock's own node. A failover that
 * loses the lock lets a second holder in while the first still works; each got its token from one
 * counter the stock store checks, so the older holder's write is refused whatever the cluster says.
 */
export const createClusterFenced = (clients: LockClients) =>
  createTokenLock(clients, { name: "cluster-fenced", safe: true, lab: true, unlock: "lua", localLine: true, server: "cluster", fenceFromStore: true });
