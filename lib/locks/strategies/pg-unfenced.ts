import type { LockClients } from "../clients";
import { createRowLock } from "../row-lock";

/**
 * Lab variant, unsafe on purpose: the row lock as it is usually written, trusting it to last until
 * commit. Postgres ends a session idle in its transaction past the TTL and hands the row to the
 * next waiter while the first holder still works; with no fence and no lease check, the late
 * holder's write lands after the next one's: a unit sold twice.
 */
export const createPgUnfenced = (clients: LockClients) =>
  createRowLock(clients, { name: "pg-unfenced", lab: true, nowait: false, fenced: false });
