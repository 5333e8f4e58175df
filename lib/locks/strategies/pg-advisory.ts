import type { LockClients } from "../clients";
import { createAdvisoryLock } from "../advisory-lock";

/**
 * `pg_advisory_lock` on a hash of the resource's name, held by a session straight to Postgres
 * (its own connection from acquire to `pg_advisory_unlock`); Postgres queues the waiters. A lease:
 * Postgres ends a session idle past the TTL (`idle_session_timeout`) and frees the lock while its
 * holder may still work, so the write is fenced (a sequence token the store checks) and the lease
 * checked before it. Without the fence, that late holder's write would land after the next one's.
 */
export const createPgAdvisory = (clients: LockClients) => createAdvisoryLock(clients, { name: "pg-advisory", via: "direct" });
