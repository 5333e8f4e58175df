// The private PostgreSQL cluster's files and SQL, for services/postgres.ts (not a service itself):
// where the cluster lives and as whom it runs, initdb, psql, and the app's role and databases.

import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { StackConfig } from "../config";
import { StackError } from "../errors";
import { tail } from "../log";
import { LOG_DIR, ROOT, STACK_DIR, mkdirp } from "../paths";
import { connectHost } from "../ports";
import { type ChildEnv, type ChildHandle, isAlive } from "../processes";

export interface PgOwner {
  readonly uid: number;
  readonly gid: number;
  readonly home: string | undefined;
}

/** Where the cluster lives, as whom it runs, and its child while it runs. */
export interface PostgresState {
  /** The directory of initdb, postgres and psql; null when PostgreSQL is not installed. */
  readonly bin: string | null;
  readonly owner: PgOwner | null;
  readonly dataDir: string;
  /** Said once at start when the cluster cannot live under .stack. */
  readonly note: string | null;
  managed: boolean;
  handle: ChildHandle | null;
}

function findPgBin(): string | null {
  const base = "/usr/lib/postgresql";
  let versions: string[] = [];
  try {
    versions = fs
      .readdirSync(base)
      .filter((v) => fs.existsSync(path.join(base, v, "bin", "initdb")))
      .sort((a, b) => Number(b) - Number(a));
  } catch {
    /* not Debian layout */
  }
  if (versions[0]) return path.join(base, versions[0], "bin");
  const which = spawnSync("sh", ["-c", "command -v initdb"], { encoding: "utf8" });
  if (which.status === 0 && which.stdout.trim()) return path.dirname(which.stdout.trim());
  return null;
}

function lookupUser(name: string): PgOwner | null {
  try {
    for (const line of fs.readFileSync("/etc/passwd", "utf8").split("\n")) {
      const f = line.split(":");
      if (f[0] === name) return { uid: Number(f[2]), gid: Number(f[3]), home: f[5] };
    }
  } catch {
    /* no passwd */
  }
  return null;
}

/** Where the cluster lives and as whom it runs. initdb/postgres refuse root, so as root they run as
 * the `postgres` user, which must be able to reach the data directory. */
export function postgresLayout(): PostgresState {
  const bin = findPgBin();
  const isRoot = process.getuid?.() === 0;
  const owner = isRoot ? lookupUser("postgres") : null;
  let dataDir = path.join(STACK_DIR, "pg");
  let note: string | null = null;
  if (isRoot && owner) {
    mkdirp(STACK_DIR, 0o755);
    const probe = spawnSync("test", ["-x", STACK_DIR], { uid: owner.uid, gid: owner.gid });
    if (probe.status !== 0) {
      const hash = crypto.createHash("sha256").update(ROOT).digest("hex").slice(0, 10);
      const base = path.join("/var/tmp", `locklab-${hash}`);
      dataDir = path.join(base, "pg");
      note = `the postgres user cannot reach ${STACK_DIR}; the cluster lives in ${dataDir}`;
    }
  }
  return { bin, owner, dataDir, note, managed: false, handle: null };
}

export function asPgOwner(pg: PostgresState): { uid?: number; gid?: number } {
  return pg.owner ? { uid: pg.owner.uid, gid: pg.owner.gid } : {};
}

export function pgEnv(pg: PostgresState): ChildEnv {
  return {
    PATH: process.env.PATH,
    LANG: "C.UTF-8",
    LC_ALL: "C.UTF-8",
    HOME: pg.owner ? path.dirname(pg.dataDir) : process.env.HOME,
  };
}

/** initdb on first start; true when it made a new cluster. */
export function initCluster(pg: PostgresState, bin: string): boolean {
  if (fs.existsSync(path.join(pg.dataDir, "PG_VERSION"))) return false;
  mkdirp(path.dirname(pg.dataDir), 0o755);
  fs.rmSync(pg.dataDir, { recursive: true, force: true });
  mkdirp(pg.dataDir, 0o700);
  if (pg.owner) fs.chownSync(pg.dataDir, pg.owner.uid, pg.owner.gid);
  const logFile = path.join(mkdirp(LOG_DIR), "postgres-initdb.log");
  const result = spawnSync(
    path.join(bin, "initdb"),
    ["-D", pg.dataDir, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-locale"],
    { cwd: path.dirname(pg.dataDir), env: pgEnv(pg) as NodeJS.ProcessEnv, encoding: "utf8", ...asPgOwner(pg) },
  );
  fs.writeFileSync(logFile, `${result.stdout ?? ""}${result.stderr ?? ""}`);
  if (result.status !== 0) {
    throw new StackError(`initdb failed; log ${logFile}:\n${tail(logFile)}`);
  }
  return true;
}

export function psql(cfg: StackConfig, bin: string, db: string, sql: string) {
  // prettier-ignore
  const args = ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", connectHost(cfg.database.host), "-p", String(cfg.database.port), "-U", "postgres", "-d", db];
  return spawnSync(path.join(bin, "psql"), args, {
    input: sql,
    encoding: "utf8",
    env: { ...process.env, PGCONNECT_TIMEOUT: "3" },
  });
}

export function sqlLiteral(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

export function sqlIdent(s: string): string {
  return `"${s.replace(/"/g, '""')}"`;
}

/** The app's role (LOGIN CREATEDB, with the URL's password) and its database and shadow database,
 * each created only when missing; psql's \gexec runs the generated statements. */
export function roleAndDatabasesSql(database: StackConfig["database"]): string {
  const { user, password, name, shadowName } = database;
  const pw = password ? ` PASSWORD ${sqlLiteral(password)}` : "";
  return `
SELECT format('CREATE ROLE %I LOGIN CREATEDB${pw.replace(/%/g, "%%")}', ${sqlLiteral(user)})
  WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = ${sqlLiteral(user)}) \\gexec
SELECT format('CREATE DATABASE %I OWNER %I', d, ${sqlLiteral(user)})
  FROM unnest(ARRAY[${sqlLiteral(name)}, ${sqlLiteral(shadowName)}]) AS d
  WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = d) \\gexec
ALTER DATABASE ${sqlIdent(name)} OWNER TO ${sqlIdent(user)};
`;
}

export function ensureRoleAndDatabases(cfg: StackConfig, bin: string): void {
  const result = psql(cfg, bin, "postgres", roleAndDatabasesSql(cfg.database));
  if (result.status !== 0) {
    throw new StackError(`could not create role/database: ${result.stderr.trim()}`);
  }
}

/** Postgres refuses to start while postmaster.pid names a pid that exists, and here a dead
 * postmaster can linger as a zombie with the same pid. */
export function removeDeadPostmasterPid(dataDir: string): void {
  const pmPid = path.join(dataDir, "postmaster.pid");
  if (fs.existsSync(pmPid)) {
    const pid = Number(fs.readFileSync(pmPid, "utf8").split("\n")[0]);
    if (!isAlive(pid)) fs.rmSync(pmPid, { force: true });
  }
}
