import { z } from "zod";

/**
 * Every setting the app reads from the environment, parsed once. Each address has the local
 * stack's default (README, "The stack and its control API"), so a bare `npm run demo` needs no configuration.
 */
const hostPort = z
  .string()
  .regex(/^[^\s:,]+:\d{1,5}$/, "expected host:port");

/** A comma-separated host:port list with the local stack's default. */
const hostPortList = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((value) => value.split(",").map((part) => part.trim()).filter(Boolean))
    .pipe(z.array(hostPort).min(1, "list at least one host:port"));

/** Exported for the local stack (scripts/stack/config.ts), which starts the servers these name. */
export const envSchema = z.object({
  REDIS_NODES: hostPortList("127.0.0.1:7001,127.0.0.1:7002,127.0.0.1:7003,127.0.0.1:7004,127.0.0.1:7005"),
  /** The Sentinels watching the `sentinel` strategies' primary (SENTINEL_MASTER names it). */
  SENTINELS: hostPortList("127.0.0.1:26381,127.0.0.1:26382,127.0.0.1:26383"),
  SENTINEL_MASTER: z.string().regex(/^[A-Za-z0-9_.-]+$/, "letters, digits, _ . -").default("locklab"),
  /** The primary and its replica the Sentinels manage (the stack starts them; the app asks the Sentinels). */
  SENTINEL_REDIS: hostPortList("127.0.0.1:7101,127.0.0.1:7102"),
  /** The ZooKeeper ensemble's client addresses. */
  ZOOKEEPER_HOSTS: hostPortList("127.0.0.1:12181,127.0.0.1:12182,127.0.0.1:12183"),
  /** The etcd cluster's client addresses (each member's peer port is its client port + 1). */
  ETCD_ENDPOINTS: hostPortList("127.0.0.1:12379,127.0.0.1:12389,127.0.0.1:12399"),
  /**
   * The Redis Cluster's nodes (three primaries, three replicas): the client's first contacts; it
   * learns who serves which slot from them. Each node's cluster bus port is its client port + 100.
   */
  REDIS_CLUSTER_NODES: hostPortList("127.0.0.1:7201,127.0.0.1:7202,127.0.0.1:7203,127.0.0.1:7204,127.0.0.1:7205,127.0.0.1:7206"),
  DATABASE_URL: z.string().url().default("postgresql://locklab@127.0.0.1:55432/locklab"),
  /** PgBouncer in transaction mode in front of the same database (the advisory-lock strategies that go through a pooler). */
  PGBOUNCER_URL: z.string().url().default("postgresql://locklab@127.0.0.1:55433/locklab"),
  SHADOW_DATABASE_NAME: z.string().default("locklab_shadow"),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(500).default(20),
  /** Connections for the row lock's holders and waiters, apart from the order insert's pool. */
  DATABASE_LOCK_POOL_SIZE: z.coerce.number().int().min(1).max(500).default(20),
  APP_INSTANCE: z.string().min(1).default(`app-${process.pid}`),
  LOCK_STRATEGY: z.string().default("token-lua"),
  LOCK_TTL_MS: z.coerce.number().int().min(1).default(2000),
  WAIT_TIMEOUT_MS: z.coerce.number().int().min(0).default(5000),
  WORK_MS: z.coerce.number().int().min(0).default(5),
  LOCK_DELAY_MS: z.coerce.number().int().min(0).default(0),
  INITIAL_STOCK: z.coerce.number().int().min(0).default(100),
  /** Purchase attempts one buyer may make per BUY_RATE_WINDOW_MS (429 beyond); 0 turns the limit off. */
  BUY_RATE_LIMIT: z.coerce.number().int().min(0).default(5),
  BUY_RATE_WINDOW_MS: z.coerce.number().int().min(100).max(3_600_000).default(1000),
  /**
   * Workshop mode: how many people may join from one network address. 1 where every phone has its
   * own address on the Wi-Fi; more where the class arrives through one (a venue's NAT, a proxy, the
   * container's port mapping on Docker Desktop). The projector changes it for the room; this is its
   * start, and what nginx's per-address ceilings are sized for (nginx/nginx.conf.template).
   */
  ROOM_PEOPLE_PER_ADDRESS: z.coerce.number().int().min(1).max(1000).default(1),
  ADMIN_PASSWORD: z.string().min(8, "use at least 8 characters").optional(),
  /** Lets Prometheus scrape GET /api/metrics with `Authorization: Bearer <token>` (an admin session works too). */
  METRICS_TOKEN: z.string().min(16, "use at least 16 characters").optional(),
  /** Signs admin session cookies; defaults to a key derived from ADMIN_PASSWORD. */
  SESSION_SECRET: z.string().min(16).optional(),
  PUBLIC_URL: z.string().url().default("http://127.0.0.1:3000"),
  STACK_CONTROL_URL: z.string().url().default("http://127.0.0.1:3999"),
  STACK_CONTROL_TOKEN: z.string().default(""),
});

export type Env = z.infer<typeof envSchema>;

let parsedEnv: Env | undefined;

/** Parses the environment on first use; a bad variable names itself and what to set. */
export function getEnv(): Env {
  return (parsedEnv ??= parseEnv());
}

function parseEnv(): Env {
  const parsed = envSchema.safeParse(process.env);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((issue) => `  ${issue.path.join(".")}: ${issue.message}`)
      .join("\n");
    throw new Error(`Invalid environment:\n${problems}\nFix these variables (see README → Configuration).`);
  }
  return parsed.data;
}
