import type { LockClients } from "../clients";
import { createTokenLock } from "../token-lock";

/**
 * token-lua on a Redis primary that three Sentinels watch, with one asynchronous replica. Fails
 * on failover: a lock the primary granted but had not yet replicated is gone once Sentinel
 * promotes the replica, so a second buyer acquires while the first still works — the reason
 * Redlock exists.
 */
export const createSentinel = (clients: LockClients) =>
  createTokenLock(clients, { name: "sentinel", safe: true, unlock: "lua", localLine: true, server: "sentinel" });
