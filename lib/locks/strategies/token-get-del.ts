import type { LockClients } from "../clients";
import { createTokenLock } from "../token-lock";

/**
 * Lab variant, unsafe on purpose: a random token per holder, but unlock is GET, compare, then
 * DEL as separate commands. If the lock expires between GET and DEL and another buyer takes it,
 * the DEL deletes their lock and a third buyer walks in beside them. Every buyer contends itself.
 */
export const createTokenGetDel = (clients: LockClients) =>
  createTokenLock(clients, { name: "token-get-del", safe: false, lab: true, unlock: "get-del", localLine: false });
