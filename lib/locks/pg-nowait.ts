import { createRowLock } from "./pg-for-update";

/**
 * Lab variant: the Postgres row lock taken with `FOR UPDATE NOWAIT`. Still safe, but a buyer who
 * finds the row locked is answered busy at once instead of queueing for it.
 */
export const pgNowait = createRowLock("pg-nowait", true);
