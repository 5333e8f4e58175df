import type { LockClients } from "../clients";
import { createTokenLock } from "../token-lock";

/**
 * Lab variant: the Sentinel lock, fenced by a token from the stock's own node. After a split brain
 * two primaries each grant the lock (each with its own counter, so a token from either could
 * repeat); a token from one counter the stock store checks refuses the older holder's write.
 */
export const createSentinelFenced = (clients: LockClients) =>
  createTokenLock(clients, { name: "sentinel-fenced", safe: true, lab: true, unlock: "lua", localLine: true, server: "sentinel", fenceFromStore: true });
