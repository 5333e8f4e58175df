// The stack's topology from the environment. The addresses' defaults come from the app's own schema
// (lib/env.ts), so the stack starts the servers the app looks for; what is valid, and the message
// for what is not, is the stack's own: the first bad variable throws a StackError naming it.

import crypto from "node:crypto";
import { envSchema } from "../../lib/env";
import { StackError } from "./errors";

export interface RedisNodeConfig {
  /** 1-based, as in the control API's /redis/<index>/… */
  readonly index: number;
  readonly host: string;
  readonly port: number;
  readonly addr: string;
}

export interface DatabaseConfig {
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  readonly name: string;
  readonly shadowName: string;
  readonly shadowUrl: string;
}

export interface AppConfig {
  /** 1-based, as in the control API's /apps/<index>/… */
  readonly index: number;
  readonly port: number;
  readonly instance: string;
}

/** A member of one of the lock-service clusters (Sentinel's Redis pair and Sentinels, ZooKeeper, etcd). */
export interface MemberConfig {
  /** 1-based, as in the control API's /<service>/<index>/… */
  readonly index: number;
  readonly host: string;
  readonly port: number;
  readonly addr: string;
}

/** PgBouncer in front of the stack's Postgres: where it listens, and the database name clients ask it for. */
export interface PgBouncerConfig extends MemberConfig {
  readonly url: string;
  readonly user: string;
  readonly name: string;
}

export interface StackConfig {
  readonly redis: readonly RedisNodeConfig[];
  /** The Redis Cluster's six nodes: three primaries and their replicas once the cluster is created. */
  readonly redisCluster: readonly MemberConfig[];
  /** The Sentinel-managed primary (first) and its replica. */
  readonly sentinelRedis: readonly MemberConfig[];
  readonly sentinels: readonly MemberConfig[];
  readonly sentinelMaster: string;
  readonly zookeeper: readonly MemberConfig[];
  readonly etcd: readonly MemberConfig[];
  /** Set by the user: a server already answering there is used instead of refused. */
  readonly redisExplicit: boolean;
  readonly database: DatabaseConfig;
  readonly databaseExplicit: boolean;
  readonly pgbouncer: PgBouncerConfig;
  readonly apps: readonly AppConfig[];
  readonly appsExplicit: boolean;
  readonly publicPort: number;
  /**
   * Where nginx listens: 127.0.0.1 (the default), or 0.0.0.0 / one LAN address for workshop mode
   * (`npm run demo -- --lan`). Everything else always stays on loopback.
   */
  readonly publicHost: string;
  /** Workshop mode: the admin pages and admin API answer from the LAN too (ADMIN_FROM_LAN=1). */
  readonly adminFromLan: boolean;
  /**
   * The address phones should use, when the instructor gives one (JOIN_URL): the projector's QR
   * code and join line show it instead of this machine's own addresses, which a phone cannot reach
   * when the lab runs in a container (or behind a NAT or proxy). Null: those addresses.
   */
  readonly joinUrl: string | null;
  readonly controlPort: number;
  readonly token: string;
}

/** What an unset or blank variable means. */
export const DEFAULTS = Object.freeze({
  REDIS_NODES: envSchema.shape.REDIS_NODES.parse(undefined).join(","),
  REDIS_CLUSTER_NODES: envSchema.shape.REDIS_CLUSTER_NODES.parse(undefined).join(","),
  SENTINEL_REDIS: envSchema.shape.SENTINEL_REDIS.parse(undefined).join(","),
  SENTINELS: envSchema.shape.SENTINELS.parse(undefined).join(","),
  SENTINEL_MASTER: envSchema.shape.SENTINEL_MASTER.parse(undefined),
  ZOOKEEPER_HOSTS: envSchema.shape.ZOOKEEPER_HOSTS.parse(undefined).join(","),
  ETCD_ENDPOINTS: envSchema.shape.ETCD_ENDPOINTS.parse(undefined).join(","),
  DATABASE_URL: envSchema.shape.DATABASE_URL.parse(undefined),
  PGBOUNCER_URL: envSchema.shape.PGBOUNCER_URL.parse(undefined),
  APP_PORTS: "3001,3002",
  PUBLIC_PORT: "3000",
  PUBLIC_HOST: "127.0.0.1",
  STACK_CONTROL_PORT: "3999",
});

/**
 * PUBLIC_HOST: loopback (the default) or every interface (workshop mode). Not one LAN address:
 * the stack, the tests and the load tools reach nginx on 127.0.0.1, which must keep answering.
 */
export function parsePublicHost(value: string): string {
  const host = value.trim();
  if (host === "localhost" || host === "127.0.0.1") return "127.0.0.1";
  if (host === "0.0.0.0") return host;
  throw new StackError(`PUBLIC_HOST: "${value}" must be 127.0.0.1 (the default: this machine only) or 0.0.0.0 (every interface: the store on the LAN)`);
}

/** JOIN_URL: an http:// or https:// address with a host and nothing secret in it; its origin and path. */
export function parseJoinUrl(value: string): string {
  const example = "(e.g. http://192.168.1.20:3000, this laptop's address on the room's network and the port you published)";
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new StackError(`JOIN_URL: "${value}" is not an address ${example}`);
  }
  if (!/^https?:$/.test(url.protocol) || !url.hostname) throw new StackError(`JOIN_URL: "${value}" must be an http:// or https:// address ${example}`);
  if (url.username || url.password) throw new StackError("JOIN_URL: leave the user and password out: everyone in the room sees this address");
  return `${url.origin}${url.pathname === "/" ? "" : url.pathname}${url.search}`;
}

export function parseHostPort(value: string, varName: string): { host: string; port: number } {
  const m = /^\s*(\[[^\]]+\]|[^:\s]+):(\d{1,5})\s*$/.exec(value);
  const port = m ? Number(m[2]) : NaN;
  if (!m?.[1] || port < 1 || port > 65535) {
    throw new StackError(`${varName}: "${value}" is not host:port (e.g. 127.0.0.1:7001)`);
  }
  return { host: m[1].replace(/^\[|\]$/g, ""), port };
}

export function parsePort(value: string, varName: string): number {
  const port = Number(String(value).trim());
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new StackError(`${varName}: "${value}" is not a TCP port`);
  }
  return port;
}

function parsePostgresUrl(value: string, varName: string): URL {
  let dbUrl: URL;
  try {
    dbUrl = new URL(value);
  } catch {
    throw new StackError(`${varName}: "${value}" is not a URL`);
  }
  if (!/^postgres(ql)?:$/.test(dbUrl.protocol)) {
    throw new StackError(`${varName}: expected postgresql://user@host:port/db`);
  }
  return dbUrl;
}

function parseDatabase(value: string): DatabaseConfig {
  const dbUrl = parsePostgresUrl(value, "DATABASE_URL");
  const name = decodeURIComponent(dbUrl.pathname.replace(/^\//, "") || "locklab");
  const shadow = new URL(dbUrl);
  shadow.pathname = `/${name}_shadow`;
  return {
    url: dbUrl.toString(),
    host: dbUrl.hostname.replace(/^\[|\]$/g, "") || "127.0.0.1",
    port: Number(dbUrl.port || 5432),
    user: decodeURIComponent(dbUrl.username || "locklab"),
    password: decodeURIComponent(dbUrl.password || ""),
    name,
    shadowName: `${name}_shadow`,
    shadowUrl: shadow.toString(),
  };
}

/** PGBOUNCER_URL: where PgBouncer listens (a port of its own) and the database name it answers to. */
function parsePgBouncer(value: string, database: DatabaseConfig): PgBouncerConfig {
  const url = parsePostgresUrl(value, "PGBOUNCER_URL");
  const host = url.hostname.replace(/^\[|\]$/g, "") || "127.0.0.1";
  const port = Number(url.port || 6432);
  if (port === database.port && host === database.host) throw new StackError(`PGBOUNCER_URL: port ${port} is Postgres' own (DATABASE_URL); give PgBouncer a port of its own`);
  return {
    index: 1,
    host,
    port,
    addr: `${host}:${port}`,
    url: url.toString(),
    user: decodeURIComponent(url.username || database.user),
    name: decodeURIComponent(url.pathname.replace(/^\//, "") || database.name),
  };
}

/** Reads the topology from the environment; an explicitly set address may point at a server that
 * is already running, which the stack then uses instead of starting its own. */
export function readConfig(env: Readonly<Record<string, string | undefined>> = process.env): StackConfig {
  const explicit = (name: string) => (env[name] ?? "").trim() !== "";
  const value = (name: keyof typeof DEFAULTS) => (explicit(name) ? (env[name] ?? "").trim() : DEFAULTS[name]);

  const members = (name: keyof typeof DEFAULTS, count?: number): MemberConfig[] => {
    const list = value(name)
      .split(",")
      .filter((s) => s.trim())
      .map((addr, i) => {
        const { host, port } = parseHostPort(addr, name);
        return { index: i + 1, host, port, addr: `${host}:${port}` };
      });
    if (list.length === 0) throw new StackError(`${name}: list at least one host:port`);
    if (count !== undefined && list.length !== count) throw new StackError(`${name}: list exactly ${count} host:port addresses`);
    return list;
  };
  const redis = members("REDIS_NODES");
  const redisCluster = members("REDIS_CLUSTER_NODES", 6);
  const sentinelMaster = value("SENTINEL_MASTER");
  if (!/^[A-Za-z0-9_.-]+$/.test(sentinelMaster)) throw new StackError(`SENTINEL_MASTER: "${sentinelMaster}" may hold only letters, digits, _ . -`);

  const database = parseDatabase(value("DATABASE_URL"));

  const apps = value("APP_PORTS")
    .split(",")
    .filter((s) => s.trim())
    .map((p, i) => ({ index: i + 1, port: parsePort(p, "APP_PORTS"), instance: `app-${i + 1}` }));
  if (apps.length === 0) throw new StackError("APP_PORTS: list at least one port");

  return {
    redis,
    redisCluster,
    sentinelRedis: members("SENTINEL_REDIS", 2),
    sentinels: members("SENTINELS"),
    sentinelMaster,
    zookeeper: members("ZOOKEEPER_HOSTS"),
    etcd: members("ETCD_ENDPOINTS"),
    redisExplicit: explicit("REDIS_NODES"),
    database,
    databaseExplicit: explicit("DATABASE_URL"),
    pgbouncer: parsePgBouncer(value("PGBOUNCER_URL"), database),
    apps,
    appsExplicit: explicit("APP_PORTS"),
    publicPort: parsePort(value("PUBLIC_PORT"), "PUBLIC_PORT"),
    publicHost: parsePublicHost(value("PUBLIC_HOST")),
    adminFromLan: (env.ADMIN_FROM_LAN ?? "").trim() === "1",
    joinUrl: explicit("JOIN_URL") ? parseJoinUrl(env.JOIN_URL ?? "") : null,
    controlPort: parsePort(value("STACK_CONTROL_PORT"), "STACK_CONTROL_PORT"),
    token: explicit("STACK_CONTROL_TOKEN")
      ? (env.STACK_CONTROL_TOKEN ?? "").trim()
      : crypto.randomBytes(16).toString("hex"),
  };
}
