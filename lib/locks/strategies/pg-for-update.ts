import type { LockClients } from "../clients";
import { createRowLock } from "../row-lock";

/**
 * `SELECT … FOR UPDATE` on the resource's row, released at commit; Postgres queues the waiters.
 * A lease too: Postgres ends a session idle in its transaction past the TTL and frees the row, so
 * the write is fenced (a sequence token the store checks) and the lease is checked before it.
 */
export const createPgForUpdate = (clients: LockClients) =>
  createRowLock(clients, { name: "pg-for-update", nowait: false, fenced: true });
