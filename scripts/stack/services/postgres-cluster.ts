// The private PostgreSQL cluster's files and SQL, for services/postgres.ts (not a service itself):
// where the cluster lives and as whom it runs, initdb, psql, and the app's role and databases.

import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { StackConfig } from "../config";
import { StackError } from "../errors";
import { tail } from "../log";
import { LOG_DIR, ROOT, STACK_DIR, makeStackDir, mkdirp, systemUser, writePrivateFile } from "../paths";
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

/** Where the cluster lives when the postgres user cannot reach .stack (a directory above it is closed to it). */
export const FALLBACK_PARENT = "/var/tmp";
/** The fallback directory this checkout's cluster lives in, recorded so the next start finds it. */
export const PG_LOCATION_FILE = path.join(STACK_DIR, "pg-location");

/** This checkout's mark in the fallback's name, so two checkouts never share a cluster. */
const checkoutHash = () => crypto.createHash("sha256").update(ROOT).digest("hex").slice(0, 10);

/**
 * A directory under `parent` this process may keep a cluster in: a real directory (lstat: never a
 * symlink someone planted), named for this checkout, this user's, and nobody else may write in
 * it. /var/tmp is everyone's: anything else found there is refused, never used.
 */
export function isOwnFallbackDir(dir: string, parent = FALLBACK_PARENT): boolean {
  if (path.dirname(dir) !== parent || !path.basename(dir).startsWith(`locklab-${checkoutHash()}`)) return false;
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(dir);
  } catch {
    return false;
  }
  return stat.isDirectory() && stat.uid === process.getuid?.() && (stat.mode & 0o022) === 0;
}

/**
 * The fallback directory: the one recorded in `record` while it is still ours; else the one an
 * older run made at the predictable `<parent>/locklab-<hash>` if that is ours (root made it: it
 * holds the cluster); else a new one made by mkdtemp (an unguessable name, created by this call,
 * so nobody can have put anything there first). 0711: the postgres user may pass through to the
 * cluster it owns inside, not list or write here.
 */
export function fallbackDir(parent = FALLBACK_PARENT, record = PG_LOCATION_FILE): string {
  let recorded = "";
  try {
    recorded = fs.readFileSync(record, "utf8").trim();
  } catch {
    // first start, or .stack was removed
  }
  if (recorded && isOwnFallbackDir(recorded, parent)) return recorded;
  const legacy = path.join(parent, `locklab-${checkoutHash()}`);
  const dir = isOwnFallbackDir(legacy, parent) ? legacy : fs.mkdtempSync(path.join(parent, `locklab-${checkoutHash()}-`));
  fs.chmodSync(dir, 0o711);
  writePrivateFile(record, `${dir}\n`);
  return dir;
}

let layout: PostgresState | null = null;

/** Where the cluster lives and as whom it runs (decided once per process: postgres and pgbouncer
 * ask). initdb/postgres refuse root, so as root they run as the `postgres` user, which passes
 * through .stack to .stack/pg (paths.ts, makeStackDir) unless a directory above it is closed to
 * that user (a checkout in root's 0700 home): then the cluster lives in fallbackDir(). */
export function postgresLayout(): PostgresState {
  if (layout) return layout;
  const bin = findPgBin();
  const isRoot = process.getuid?.() === 0;
  const owner = isRoot ? systemUser("postgres") : null;
  let dataDir = path.join(STACK_DIR, "pg");
  let note: string | null = null;
  if (isRoot && owner) {
    makeStackDir();
    const probe = spawnSync("test", ["-x", STACK_DIR], { uid: owner.uid, gid: owner.gid });
    if (probe.status !== 0) {
      dataDir = path.join(fallbackDir(), "pg");
      note = `the postgres user cannot reach ${STACK_DIR}; the cluster lives in ${dataDir}`;
    }
  }
  layout = { bin, owner, dataDir, note, managed: false, handle: null };
  return layout;
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
