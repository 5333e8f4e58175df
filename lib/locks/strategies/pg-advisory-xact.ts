import type { LockClients } from "../clients";
import { createRowLock } from "../row-lock";

/**
 * `pg_advisory_xact_lock` inside a transaction, released by its commit; taken through PgBouncer in
 * transaction mode, which keeps one server connection for a transaction from BEGIN to COMMIT: the
 * lock that survives a pooler. A lease as pg-for-update is (Postgres ends a session idle in its
 * transaction past the TTL and frees the lock), so the write is fenced and the lease checked.
 */
export const createPgAdvisoryXact = (clients: LockClients) =>
  createRowLock(clients, { name: "pg-advisory-xact", nowait: false, fenced: true, lockOn: "advisory", viaPooler: true });
