import type { LockClients } from "../clients";
import { createRowLock } from "../row-lock";

/**
 * Lab variant: the Postgres row lock taken with `FOR UPDATE NOWAIT`. Still safe (fenced, lease
 * checked), but a buyer who finds the row locked is answered busy at once instead of queueing.
 */
export const createPgNowait = (clients: LockClients) =>
  createRowLock(clients, { name: "pg-nowait", lab: true, nowait: true, fenced: true });
