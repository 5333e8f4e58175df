import type { LockClients } from "../clients";
import { createTokenLock } from "../token-lock";

/**
 * `SET key token NX PX ttl` with a random token per holder; release is an atomic Lua
 * compare-and-delete, so a holder never deletes someone else's lock. Safe while the work fits in
 * the TTL; when it does not, the lease check stops the late holder before it writes (lock_lost).
 * Buyers line up locally and a holder hands the lock on to the next of its line.
 */
export const createTokenLua = (clients: LockClients) =>
  createTokenLock(clients, { name: "token-lua", safe: true, unlock: "lua", localLine: true });
