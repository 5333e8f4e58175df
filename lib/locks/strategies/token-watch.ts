import type { LockClients } from "../clients";
import { createTokenLock } from "../token-lock";

/**
 * Lab variant: token lock whose unlock is WATCH key, GET, then MULTI/DEL/EXEC. The transaction
 * aborts if the lock changed after the GET, so a late unlock never deletes another holder's lock.
 */
export const createTokenWatch = (clients: LockClients) =>
  createTokenLock(clients, { name: "token-watch", safe: true, lab: true, unlock: "watch", localLine: true });
