/** The lock key of a resource, for every strategy that keeps its lock in Redis. */
export const lockKey = (resource: string) => `lock:${resource}`;
