// PgBouncer in transaction mode (Debian's pgbouncer) in front of the stack's Postgres, for the
// advisory-lock strategies that go through a pooler: PGBOUNCER_URL names where it listens and the
// database clients ask it for, which it serves from DATABASE_URL's. A cluster of one (so the
// control API has /pgbouncer/1/stop|start|pause|resume|kill), with a group id of its own: as a
// client it is the pooler's link to Postgres, as a server the apps' link to the pooler.
//
// PgBouncer refuses to run as root: as root it runs as the `postgres` user (as Postgres does),
// keeping its group id, and its config sits where that user can read it.

import { spawnSync } from "node:child_process";
import path from "node:path";
import pg from "pg";
import type { PgBouncerConfig, StackConfig } from "../config";
import { clusterService } from "../cluster";
import { StackError } from "../errors";
import { mkdirp, writePrivateFile } from "../paths";
import { connectHost, portAnswers } from "../ports";
import { postgresLayout } from "./postgres-cluster";

/** How long a client may wait for a server connection before PgBouncer answers it with an error. */
export const PGBOUNCER_QUERY_WAIT_S = 5;
/** Server connections per database and user: every app instance's pool of the lock (DATABASE_LOCK_POOL_SIZE, 20 each) and a test's. */
export const PGBOUNCER_POOL_SIZE = 60;

export interface PgBouncerIni {
  readonly listen: { readonly host: string; readonly port: number };
  /** The name clients ask for, and the user they connect as. */
  readonly name: string;
  readonly user: string;
  /** Where the database really is. */
  readonly server: { readonly host: string; readonly port: number; readonly name: string; readonly password?: string };
  readonly authFile: string;
}

/**
 * pgbouncer.ini. Transaction pooling as it ships: a server connection is lent per transaction, and
 * nothing is reset between clients (server_reset_query runs in session mode only, unless
 * server_reset_query_always) — so a session's advisory lock outlives the transaction that took it,
 * on a connection the next client is lent. Trust on loopback, as the stack's Postgres has.
 */
export function pgbouncerIni(ini: PgBouncerIni): string {
  const target = [`host=${connectHost(ini.server.host)}`, `port=${ini.server.port}`, `dbname=${ini.server.name}`, ...(ini.server.password ? [`password=${ini.server.password}`] : [])];
  return [
    "[databases]",
    `${ini.name} = ${target.join(" ")}`,
    "",
    "[pgbouncer]",
    `listen_addr = ${connectHost(ini.listen.host)}`,
    `listen_port = ${ini.listen.port}`,
    "unix_socket_dir =",
    "auth_type = trust",
    `auth_file = ${ini.authFile}`,
    "pool_mode = transaction",
    `default_pool_size = ${PGBOUNCER_POOL_SIZE}`,
    "max_client_conn = 1000",
    "server_reset_query = DISCARD ALL",
    "server_reset_query_always = 0",
    // A Postgres restarted by the lab is used again within a second, not after the default 15 s.
    "server_login_retry = 1",
    `query_wait_timeout = ${PGBOUNCER_QUERY_WAIT_S}`,
    "ignore_startup_parameters = extra_float_digits",
    "log_connections = 0",
    "log_disconnections = 0",
    "",
  ].join("\n");
}

/** userlist.txt: the one user, whose password trust does not ask for. */
export const pgbouncerUsers = (user: string) => `"${user.replace(/"/g, '""')}" ""\n`;

/** The pgbouncer binary (Debian puts it in /usr/sbin, which a user's PATH may lack), or null. */
export function findPgBouncer(): string | null {
  for (const candidate of ["pgbouncer", "/usr/sbin/pgbouncer"]) {
    if (spawnSync(candidate, ["--version"], { timeout: 5000 }).status === 0) return candidate;
  }
  return null;
}

function iniFor(cfg: StackConfig, bouncer: PgBouncerConfig, authFile: string): PgBouncerIni {
  const { database } = cfg;
  return {
    listen: { host: bouncer.host, port: bouncer.port },
    name: bouncer.name,
    user: bouncer.user,
    server: { host: database.host, port: database.port, name: database.name, ...(database.password ? { password: database.password } : {}) },
    authFile,
  };
}

/** Resolves true once a query goes through PgBouncer to Postgres and back. */
export async function pgbouncerServes(bouncer: { host: string; port: number; user: string; name: string }, timeoutMs = 1000): Promise<boolean> {
  const client = new pg.Client({ host: connectHost(bouncer.host), port: bouncer.port, user: bouncer.user, database: bouncer.name, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

export const pgbouncer = clusterService({
  name: "pgbouncer",
  portVar: "PGBOUNCER_URL",
  what: "pgbouncer",
  marker: "pgbouncer",
  members: ({ cfg }) => [cfg.pgbouncer],
  command(_m, dir, _members, { cfg }) {
    const binary = findPgBouncer();
    if (!binary) throw new StackError("pgbouncer is not installed (Debian's pgbouncer package); run: node scripts/bootstrap.mjs stack");
    const layout = postgresLayout();
    const isRoot = process.getuid?.() === 0;
    if (isRoot && !layout.owner) throw new StackError("PgBouncer refuses to run as root, and there is no postgres user to run it as (Debian's postgresql package makes one)");
    // Where the postgres user cannot reach .stack, Postgres lives elsewhere: so does this config.
    const confDir = layout.note ? mkdirp(path.join(path.dirname(layout.dataDir), "pgbouncer"), 0o755) : dir;
    const authFile = path.join(confDir, "userlist.txt");
    const iniFile = path.join(confDir, "pgbouncer.ini");
    // 0600, the user PgBouncer runs as its owner: the ini holds Postgres' password when DATABASE_URL has one.
    const owner = isRoot && layout.owner ? { uid: layout.owner.uid, gid: layout.owner.gid } : undefined;
    writePrivateFile(authFile, pgbouncerUsers(cfg.pgbouncer.user), owner);
    writePrivateFile(iniFile, pgbouncerIni(iniFor(cfg, cfg.pgbouncer, authFile)), owner);
    return { command: binary, args: [iniFile], ...(isRoot && layout.owner ? { uid: layout.owner.uid } : {}) };
  },
  answers: (m) => portAnswers(m.host, m.port, 300),
  // Its one member is the PgBouncerConfig itself (user and database name included).
  serves: (members) => pgbouncerServes(members[0] as PgBouncerConfig),
  // Started beside Postgres, it serves once Postgres does (a first initdb included: Postgres' own 30 s, and a margin).
  readyTimeoutMs: 45_000,
});
