/** The lock services' clusters the stack runs, as its control API names them, and what can be done to a member. */
export const CLUSTER_SERVICES = ["sentinel-redis", "sentinel", "redis-cluster", "zookeeper", "etcd", "pgbouncer"] as const;
export type ClusterService = (typeof CLUSTER_SERVICES)[number];
export const MEMBER_OPS = ["stop", "start", "pause", "resume", "kill"] as const;
export type MemberOp = (typeof MEMBER_OPS)[number];
