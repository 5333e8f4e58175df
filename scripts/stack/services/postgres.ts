// A private PostgreSQL cluster (initdb on first start), run as a child; creates the app's role and
// its database and shadow database. The cluster's files and SQL are in postgres-cluster.ts.

import path from "node:path";
import type { StackConfig } from "../config";
import { HttpError, StackError } from "../errors";
import { ok, say, tail } from "../log";
import { LOCAL_HOSTS, foreignPort, portAnswers } from "../ports";
import {
  exitDescription,
  isAlive,
  removePidFile,
  running,
  signal,
  spawnChild,
  terminate,
  waitExit,
  waitFor,
} from "../processes";
import type { Service, ServiceFactory } from "../service";
import { type StaleRule, decidePortClaim } from "../stale";
import {
  type PostgresState,
  asPgOwner,
  ensureRoleAndDatabases,
  initCluster,
  pgEnv,
  postgresLayout,
  psql,
  removeDeadPostmasterPid,
} from "./postgres-cluster";

const PG_READY_TIMEOUT_MS = 30_000;
const NO_BINARIES = "PostgreSQL server binaries not found (initdb); run: node scripts/bootstrap.mjs stack";

async function startPostgres(cfg: StackConfig, pg: PostgresState): Promise<void> {
  const { database } = cfg;
  const bin = pg.bin;
  if (!bin) throw new StackError(NO_BINARIES); // claim() refuses to manage Postgres without them
  const t0 = Date.now();
  const created = initCluster(pg, bin);
  const listen = database.host === "localhost" ? "localhost" : database.host;
  const handle = spawnChild(
    "postgres",
    path.join(bin, "postgres"),
    // prettier-ignore
    [
      "-D", pg.dataDir,
      "-c", `listen_addresses=${listen}`,
      "-c", `port=${database.port}`,
      "-c", "max_connections=200",
      "-c", "unix_socket_directories=",
      "-c", "logging_collector=off",
    ],
    {
      cwd: path.dirname(pg.dataDir),
      env: pgEnv(pg),
      ...asPgOwner(pg),
      record: { kind: "postgres", port: database.port, dataDir: pg.dataDir },
    },
  );
  pg.handle = handle;
  const ready = await waitFor(
    async () => {
      if (handle.exitInfo) return true;
      if (!(await portAnswers(database.host, database.port, 300))) return false;
      return psql(cfg, bin, "postgres", "SELECT 1").status === 0;
    },
    PG_READY_TIMEOUT_MS,
    100,
  );
  if (!ready || handle.exitInfo) {
    await terminate(handle, "SIGQUIT");
    throw new StackError(
      `postgres on port ${database.port} did not start (${exitDescription(handle.exitInfo)}); log ${handle.logFile}:\n${tail(handle.logFile)}`,
    );
  }
  ensureRoleAndDatabases(cfg, bin);
  ok(`postgres ${database.host}:${database.port} db ${database.name}${created ? " (new cluster)" : ""}`, t0);
}

async function stopPostgres(pg: PostgresState): Promise<void> {
  const handle = pg.handle;
  if (!running(handle)) return;
  signal(handle.pid, "SIGINT", false); // fast shutdown, what `pg_ctl stop -m fast` sends
  if (!(await waitExit(handle, 20_000))) {
    signal(handle.pid, "SIGQUIT", false);
    if (!(await waitExit(handle, 5000))) signal(handle.pid, "SIGKILL");
    await waitExit(handle, 2000);
  }
  removePidFile(handle.name);
}

export const POSTGRES_STALE: StaleRule = {
  kind: "postgres",
  isOurs: (rec, proc) => proc.cmdline.includes("postgres") && Boolean(rec.dataDir && proc.cmdline.includes(rec.dataDir)),
  async stop(rec) {
    signal(rec.pid, "SIGINT", false); // = pg_ctl stop -m fast
    if (!(await waitFor(() => !isAlive(rec.pid), 20_000))) signal(rec.pid, "SIGQUIT", false);
  },
};

function notManaged(): HttpError {
  return new HttpError(409, "not_managed", "postgres was already running when the stack started");
}

export const postgres: ServiceFactory = ({ cfg }): Service => {
  const pg = postgresLayout();
  const db = cfg.database;

  return {
    name: "postgres",
    stage: "store",
    stale: POSTGRES_STALE,

    cleanup: () => removeDeadPostmasterPid(pg.dataDir),

    async claim() {
      pg.managed = true;
      const answers = await portAnswers(db.host, db.port);
      switch (decidePortClaim({ answers, local: LOCAL_HOSTS.has(db.host), explicit: cfg.databaseExplicit })) {
        case "use-existing":
          pg.managed = false;
          say(`✓ postgres ${db.host}:${db.port} (already running, used as is)`);
          return;
        case "foreign":
        case "stop-leftover": // not told apart for Postgres: anything answering uninvited is foreign
          throw foreignPort(db.port, "DATABASE_URL", "postgres");
        case "unreachable":
          throw new StackError(`DATABASE_URL: ${db.host}:${db.port} does not answer and is not local, so the stack cannot start it`);
        case "start":
          if (!pg.bin) throw new StackError(NO_BINARIES);
      }
    },

    async start() {
      if (pg.note) say(`  note: ${pg.note}`);
      if (pg.managed) await startPostgres(cfg, pg);
    },

    stop: () => stopPostgres(pg),

    status: async () => ({ up: await portAnswers(db.host, db.port, 300), managed: pg.managed, addr: `${db.host}:${db.port}` }),

    routes: [
      {
        method: "POST",
        path: /^\/postgres\/stop$/,
        async handle() {
          if (!pg.managed) throw notManaged();
          await stopPostgres(pg);
          say("… postgres stopped (control API)");
          return { postgres: { up: false } };
        },
      },
      {
        method: "POST",
        path: /^\/postgres\/start$/,
        async handle() {
          if (!pg.managed) throw notManaged();
          if (!running(pg.handle)) await startPostgres(cfg, pg);
          return { postgres: { up: true } };
        },
      },
    ],

    faulted: () => pg.managed && !running(pg.handle),

    async resetFaults() {
      if (pg.managed && !running(pg.handle)) await startPostgres(cfg, pg);
    },
  };
};
