import type { LockClients } from "../clients";
import { createAdvisoryLock } from "../advisory-lock";

/**
 * Lab variant, unsafe on purpose: pg-advisory's session lock taken through PgBouncer in
 * transaction mode, as code written for a direct connection does once a pooler is put in front.
 * The lock lands on a server connection PgBouncer lends the next buyer too, and advisory locks are
 * reentrant per session, so the next buyer "gets" it while the first still holds it: two holders.
 * An unlock that runs on another server connection fails (false) and leaves the lock behind.
 */
export const createPgAdvisoryPooled = (clients: LockClients) =>
  createAdvisoryLock(clients, { name: "pg-advisory-pooled", lab: true, via: "pooler" });
