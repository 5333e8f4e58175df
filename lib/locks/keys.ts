/** The lock key of a resource, for every strategy that keeps its lock in Redis. */
export const lockKey = (resource: string) => `lock:${resource}`;

/** A fencing counter on node 1, the stock's own node, for locks whose own servers cannot count for everyone. */
export const storeFenceKey = (resource: string) => `fence:store:${resource}`;

/**
 * A Postgres advisory lock's key for a resource, as SQL over its name (a parameter such as `$1`,
 * or an escaped literal): a 64-bit hash Postgres computes, the same for the session and the
 * transaction-scoped lock, so the two exclude each other.
 */
export const advisoryKey = (nameSql: string) => `hashtextextended(${nameSql}, 0)`;
