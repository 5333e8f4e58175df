import { createRowLock } from "./pg-for-update";

/**
 * Lab variant, unsafe on purpose: the row lock as it is usually written, trusting it to last until
 * commit. It does not: Postgres ends a session idle in its transaction past the TTL and hands the
 * row to the next waiter, while the first holder is still working. With no fence and no lease
 * check, the late holder's write lands after the next one's: a unit sold twice.
 */
export const pgUnfenced = createRowLock({ name: "pg-unfenced", nowait: false, fenced: false });
