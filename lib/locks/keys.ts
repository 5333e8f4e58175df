/** The lock key of a resource, for every strategy that keeps its lock in Redis. */
export const lockKey = (resource: string) => `lock:${resource}`;

/** A fencing counter on node 1, the stock's own node, for locks whose own servers cannot count for everyone. */
export const storeFenceKey = (resource: string) => `fence:store:${resource}`;
