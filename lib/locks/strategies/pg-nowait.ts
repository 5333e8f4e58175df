import { createRowLock } from "./pg-for-update";

/**
 * Lab variant: the Postgres row lock taken with `FOR UPDATE NOWAIT`. Still safe (fenced, lease
 * checked), but a buyer who finds the row locked is answered busy at once instead of queueing.
 */
export const pgNowait = createRowLock({ name: "pg-nowait", nowait: true, fenced: true });
