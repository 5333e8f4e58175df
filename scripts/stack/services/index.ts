// Every service of the stack, in start order. Adding one (Sentinel, ZooKeeper, etcd…) is a file in
// this directory exporting a ServiceFactory (see ../service.ts) plus its line here.
// PgBouncer starts beside Postgres (the store stage starts together) and waits, as its readiness,
// until a query goes through it to Postgres.
//
// Order matters: services of one stage start together in this order, and stopping walks the list
// backwards (nginx, the apps, Redis, Postgres, and last the network's nft table). Postgres comes first because its initdb runs
// synchronously: the Redis nodes' readiness timeouts start only after it. Ports are claimed in
// this order too, and /status lists the services in it.

import type { ServiceFactory } from "../service";
import { apps } from "./apps";
import { nginx } from "./nginx";
import { pgbouncer } from "./pgbouncer";
import { postgres } from "./postgres";
import { redis } from "./redis";
import { redisCluster } from "./redis-cluster";
import { sentinel, sentinelRedis } from "./sentinel";
import { zookeeper } from "./zookeeper";
import { etcd } from "./etcd";
import { network } from "./network";

export const SERVICES: readonly ServiceFactory[] = [network, postgres, redis, sentinelRedis, sentinel, redisCluster, zookeeper, etcd, pgbouncer, apps, nginx];
