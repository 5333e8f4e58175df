#!/usr/bin/env node
// Lock Lab local stack: five independent Redis nodes, PostgreSQL, N Next.js instances and nginx in
// front, supervised from one Node process with a small control API for fault injection (stop a
// Redis node, pause an instance, kill it, stop Postgres). Dependency-free on purpose: it runs on a
// fresh clone before anything else is installed.
//
//   node scripts/stack.mjs            run the stack in the foreground (Ctrl-C stops everything)
//   import { startStack, stopStack }  used by scripts/bootstrap.mjs (demo, stack, test)
//
// Every child runs in its own process group, so Ctrl-C reaches only the supervisor, which stops the
// children in order (nginx, apps, Redis, Postgres) and waits for each. Pidfiles under .stack/pids
// let the next start clean up after a supervisor that was killed with SIGKILL.

import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const STACK_DIR = path.join(ROOT, '.stack');
const LOG_DIR = path.join(STACK_DIR, 'logs');
const PID_DIR = path.join(STACK_DIR, 'pids');
const ENV_FILE = path.join(STACK_DIR, 'stack.env');
const NEXT_BIN = path.join(ROOT, 'node_modules', 'next', 'dist', 'bin', 'next');
const NGINX_TEMPLATE = path.join(ROOT, 'nginx', 'nginx.conf.template');

export const DEFAULTS = Object.freeze({
  REDIS_NODES: '127.0.0.1:7001,127.0.0.1:7002,127.0.0.1:7003,127.0.0.1:7004,127.0.0.1:7005',
  DATABASE_URL: 'postgresql://locklab@127.0.0.1:55432/locklab',
  APP_PORTS: '3001,3002',
  PUBLIC_PORT: '3000',
  STACK_CONTROL_PORT: '3999',
});

const APP_READY_TIMEOUT_MS = 60_000;
const REDIS_READY_TIMEOUT_MS = 10_000;
const PG_READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;
const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '::1']);

export class StackError extends Error {
  name = 'StackError';
}

// ---------------------------------------------------------------------------------------------
// small helpers

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const since = (t0) => `${Date.now() - t0} ms`;
const secondsSince = (t0) => `${((Date.now() - t0) / 1000).toFixed(1)} s`;

function mkdirp(dir, mode) {
  fs.mkdirSync(dir, { recursive: true, mode });
  return dir;
}

function tail(file, lines = 15) {
  try {
    const text = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
    return text.slice(-lines).map((l) => `    │ ${l}`).join('\n');
  } catch {
    return '    │ (no log)';
  }
}

/** Alive and not a zombie. A daemon whose parent never reaps it stays in /proc as state Z. */
export function isAlive(pid) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch (err) {
    if (err.code !== 'ENOENT' || fs.existsSync('/proc/self/stat')) return false;
    try {
      process.kill(pid, 0); // no /proc (macOS): best effort
      return true;
    } catch {
      return false;
    }
  }
}

/** Next.js replaces its process title ("next-server (v16…)"), so apps are recognised by a marker
 * in their environment instead of their command line. */
function environHas(pid, entry) {
  try {
    return fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(entry);
  } catch {
    return false;
  }
}

function cmdlineOf(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    const ps = spawnSync('ps', ['-o', 'command=', '-p', String(pid)], { encoding: 'utf8' });
    return ps.status === 0 ? ps.stdout.trim() : '';
  }
}

function signal(pid, sig, group = true) {
  if (!pid) return;
  try {
    process.kill(group ? -pid : pid, sig);
  } catch {
    try {
      process.kill(pid, sig);
    } catch {
      /* already gone */
    }
  }
}

async function waitFor(check, timeoutMs, intervalMs = 100) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(intervalMs);
  }
}

function parseHostPort(value, varName) {
  const m = /^\s*(\[[^\]]+\]|[^:\s]+):(\d{1,5})\s*$/.exec(value);
  const port = m ? Number(m[2]) : NaN;
  if (!m || port < 1 || port > 65535) {
    throw new StackError(`${varName}: "${value}" is not host:port (e.g. 127.0.0.1:7001)`);
  }
  return { host: m[1].replace(/^\[|\]$/g, ''), port };
}

function parsePort(value, varName) {
  const port = Number(String(value).trim());
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new StackError(`${varName}: "${value}" is not a TCP port`);
  }
  return port;
}

function connectHost(host) {
  return host === 'localhost' ? '127.0.0.1' : host;
}

/** Resolves true when something accepts TCP connections at host:port. */
export function portAnswers(host, port, timeoutMs = 500) {
  return new Promise((resolve) => {
    const socket = net.connect({ host: connectHost(host), port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

// ---------------------------------------------------------------------------------------------
// a tiny RESP client: PING, CONFIG GET, SHUTDOWN NOSAVE (no redis-cli needed)

function encodeResp(args) {
  let out = `*${args.length}\r\n`;
  for (const arg of args) out += `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`;
  return out;
}

/** Returns [value, nextOffset] or null when buf holds no complete reply yet. */
function parseResp(buf, offset = 0) {
  const lineEnd = buf.indexOf('\r\n', offset);
  if (lineEnd < 0) return null;
  const type = String.fromCharCode(buf[offset]);
  const line = buf.toString('utf8', offset + 1, lineEnd);
  const next = lineEnd + 2;
  switch (type) {
    case '+':
      return [line, next];
    case '-':
      return [new Error(line), next];
    case ':':
      return [Number(line), next];
    case '$': {
      const len = Number(line);
      if (len < 0) return [null, next];
      if (buf.length < next + len + 2) return null;
      return [buf.toString('utf8', next, next + len), next + len + 2];
    }
    case '*': {
      const count = Number(line);
      const items = [];
      let at = next;
      for (let i = 0; i < count; i++) {
        const parsed = parseResp(buf, at);
        if (!parsed) return null;
        items.push(parsed[0]);
        at = parsed[1];
      }
      return [items, at];
    }
    default:
      return [new Error(`unexpected RESP type ${type}`), buf.length];
  }
}

/** Sends one command. Resolves {reply} | {closed:true} | {error}. Never rejects. */
export function redisCommand(host, port, args, timeoutMs = 1000) {
  return new Promise((resolve) => {
    let buf = Buffer.alloc(0);
    let settled = false;
    const socket = net.connect({ host: connectHost(host), port });
    const finish = (result) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(timeoutMs, () => finish({ error: new Error('timeout') }));
    socket.once('connect', () => socket.write(encodeResp(args)));
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      const parsed = parseResp(buf);
      if (parsed) finish({ reply: parsed[0] });
    });
    socket.once('end', () => finish({ closed: true }));
    socket.once('close', () => finish({ closed: true }));
    socket.once('error', (error) => finish({ error }));
  });
}

export async function redisPing(host, port, timeoutMs = 500) {
  const { reply } = await redisCommand(host, port, ['PING'], timeoutMs);
  return reply === 'PONG';
}

async function redisConfigDir(host, port) {
  const { reply } = await redisCommand(host, port, ['CONFIG', 'GET', 'dir']);
  return Array.isArray(reply) ? reply[1] : null;
}

async function redisShutdown(host, port) {
  await redisCommand(host, port, ['SHUTDOWN', 'NOSAVE'], 3000);
  return waitFor(async () => !(await portAnswers(host, port, 200)), STOP_TIMEOUT_MS);
}

// ---------------------------------------------------------------------------------------------
// HTTP probe

function httpStatus(url, timeoutMs = 2000) {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false, timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.once('timeout', () => req.destroy(new Error('timeout')));
    req.once('error', () => resolve(0));
  });
}

// ---------------------------------------------------------------------------------------------
// configuration

/** Reads the topology from the environment; an explicitly set address may point at a server that
 * is already running, which the stack then uses instead of starting its own. */
export function readConfig(env = process.env) {
  const explicit = (name) => typeof env[name] === 'string' && env[name].trim() !== '';
  const value = (name) => (explicit(name) ? env[name].trim() : DEFAULTS[name]);

  const redis = value('REDIS_NODES')
    .split(',')
    .filter((s) => s.trim())
    .map((addr, i) => {
      const { host, port } = parseHostPort(addr, 'REDIS_NODES');
      return { index: i + 1, host, port, addr: `${host}:${port}` };
    });
  if (redis.length === 0) throw new StackError('REDIS_NODES: list at least one host:port');

  let dbUrl;
  try {
    dbUrl = new URL(value('DATABASE_URL'));
  } catch {
    throw new StackError(`DATABASE_URL: "${value('DATABASE_URL')}" is not a URL`);
  }
  if (!/^postgres(ql)?:$/.test(dbUrl.protocol)) {
    throw new StackError('DATABASE_URL: expected postgresql://user@host:port/db');
  }
  const database = {
    url: dbUrl.toString(),
    host: dbUrl.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1',
    port: Number(dbUrl.port || 5432),
    user: decodeURIComponent(dbUrl.username || 'locklab'),
    password: decodeURIComponent(dbUrl.password || ''),
    name: decodeURIComponent(dbUrl.pathname.replace(/^\//, '') || 'locklab'),
  };
  const shadow = new URL(dbUrl);
  shadow.pathname = `/${database.name}_shadow`;
  database.shadowName = `${database.name}_shadow`;
  database.shadowUrl = shadow.toString();

  const apps = value('APP_PORTS')
    .split(',')
    .filter((s) => s.trim())
    .map((p, i) => ({ index: i + 1, port: parsePort(p, 'APP_PORTS'), instance: `app-${i + 1}` }));
  if (apps.length === 0) throw new StackError('APP_PORTS: list at least one port');

  return {
    redis,
    redisExplicit: explicit('REDIS_NODES'),
    database,
    databaseExplicit: explicit('DATABASE_URL'),
    apps,
    appsExplicit: explicit('APP_PORTS'),
    publicPort: parsePort(value('PUBLIC_PORT'), 'PUBLIC_PORT'),
    controlPort: parsePort(value('STACK_CONTROL_PORT'), 'STACK_CONTROL_PORT'),
    token: explicit('STACK_CONTROL_TOKEN')
      ? env.STACK_CONTROL_TOKEN.trim()
      : crypto.randomBytes(16).toString('hex'),
  };
}

// ---------------------------------------------------------------------------------------------
// pidfiles and the processes we start

function pidFile(name) {
  return path.join(PID_DIR, `${name}.json`);
}

function writePidFile(name, record) {
  mkdirp(PID_DIR);
  fs.writeFileSync(pidFile(name), `${JSON.stringify({ ...record, supervisor: process.pid })}\n`);
}

function removePidFile(name) {
  fs.rmSync(pidFile(name), { force: true });
}

const children = new Set(); // every live child, for the last-resort exit handler

/**
 * Spawns a long-running child in its own process group with stdout/stderr appended to
 * .stack/logs/<name>.log. Returns a handle whose `exited` promise resolves with {code, signal}.
 */
function spawnChild(name, command, args, { env, cwd = ROOT, uid, gid, record = {} } = {}) {
  if (current) current.started = true;
  mkdirp(LOG_DIR);
  const logFile = path.join(LOG_DIR, `${name}.log`);
  const fd = fs.openSync(logFile, 'a');
  fs.writeSync(fd, `\n=== ${new Date().toISOString()} ${command} ${args.join(' ')}\n`);
  let child;
  try {
    child = spawn(command, args, {
      cwd,
      env,
      uid,
      gid,
      detached: true,
      stdio: ['ignore', fd, fd],
    });
  } finally {
    fs.closeSync(fd);
  }
  const handle = { name, child, pid: child.pid, logFile, exitInfo: null };
  handle.exited = new Promise((resolve) => {
    child.once('error', (error) => {
      handle.exitInfo = { code: null, signal: null, error };
      children.delete(handle);
      resolve(handle.exitInfo);
    });
    child.once('exit', (code, sig) => {
      handle.exitInfo = { code, signal: sig };
      children.delete(handle);
      resolve(handle.exitInfo);
    });
  });
  if (child.pid) {
    children.add(handle);
    writePidFile(name, { pid: child.pid, kind: record.kind ?? name, ...record });
  }
  return handle;
}

async function waitExit(handle, timeoutMs) {
  if (!handle || handle.exitInfo) return true;
  return Promise.race([handle.exited.then(() => true), sleep(timeoutMs).then(() => false)]);
}

/** Signal, wait, escalate to SIGKILL. */
async function terminate(handle, sig = 'SIGTERM', timeoutMs = STOP_TIMEOUT_MS) {
  if (!handle || handle.exitInfo) return;
  signal(handle.pid, 'SIGCONT'); // a paused process cannot act on SIGTERM
  signal(handle.pid, sig);
  if (!(await waitExit(handle, timeoutMs))) {
    signal(handle.pid, 'SIGKILL');
    await waitExit(handle, 2000);
  }
}

function exitDescription(info) {
  if (!info) return 'running';
  if (info.error) return info.error.message;
  return info.signal ? `killed by ${info.signal}` : `exit code ${info.code}`;
}

// ---------------------------------------------------------------------------------------------
// output

let quiet = false;
const say = (line) => console.log(line);
const info = (line) => {
  if (!quiet) console.log(line);
};
const ok = (what, t0) => say(`✓ ${what}${t0 ? ` (${since(t0)})` : ''}`);
const warn = (line) => console.warn(`! ${line}`);

// ---------------------------------------------------------------------------------------------
// stale stack and port checks

/** Stops whatever a previous run (including one killed with SIGKILL) left running. */
async function cleanStale(cfg, pg) {
  if (!fs.existsSync(PID_DIR)) return;
  const records = [];
  for (const file of fs.readdirSync(PID_DIR)) {
    if (!file.endsWith('.json')) continue;
    try {
      records.push({ file, ...JSON.parse(fs.readFileSync(path.join(PID_DIR, file), 'utf8')) });
    } catch {
      fs.rmSync(path.join(PID_DIR, file), { force: true });
    }
  }
  // The previous supervisor first: if it is still alive it stops its own children in order.
  records.sort((a, b) => (a.kind === 'supervisor' ? -1 : b.kind === 'supervisor' ? 1 : 0));
  for (const rec of records) {
    const { pid, kind } = rec;
    if (pid === process.pid || !isAlive(pid)) {
      fs.rmSync(path.join(PID_DIR, rec.file), { force: true });
      continue;
    }
    const cmd = cmdlineOf(pid);
    const ours =
      (kind === 'supervisor' && cmd.includes(ROOT)) ||
      (kind === 'redis' && cmd.includes('redis-server')) ||
      (kind === 'postgres' && cmd.includes('postgres') && rec.dataDir && cmd.includes(rec.dataDir)) ||
      (kind === 'app' && (cmd.includes(ROOT) || environHas(pid, `LOCKLAB_STACK_ROOT=${ROOT}`))) ||
      (kind === 'nginx' && cmd.includes(ROOT));
    if (!ours) {
      fs.rmSync(path.join(PID_DIR, rec.file), { force: true });
      continue;
    }
    const t0 = Date.now();
    if (kind === 'supervisor') {
      signal(pid, 'SIGTERM', false);
      if (!(await waitFor(() => !isAlive(pid), 30_000))) signal(pid, 'SIGKILL', false);
    } else if (kind === 'redis') {
      const stopped = rec.port && (await redisShutdown('127.0.0.1', rec.port));
      if (!stopped) signal(pid, 'SIGKILL', false);
    } else if (kind === 'postgres') {
      signal(pid, 'SIGINT', false); // = pg_ctl stop -m fast
      if (!(await waitFor(() => !isAlive(pid), 20_000))) signal(pid, 'SIGQUIT', false);
    } else {
      signal(pid, 'SIGCONT');
      signal(pid, 'SIGTERM');
      if (!(await waitFor(() => !isAlive(pid), 5000))) signal(pid, 'SIGKILL');
    }
    await waitFor(() => !isAlive(pid), 5000);
    say(`✓ stopped stale ${rec.file.replace(/\.json$/, '')} from a previous run (pid ${pid}, ${since(t0)})`);
    fs.rmSync(path.join(PID_DIR, rec.file), { force: true });
  }
  // Postgres refuses to start while postmaster.pid names a pid that exists, and here a dead
  // postmaster can linger as a zombie with the same pid.
  const pmPid = path.join(pg.dataDir, 'postmaster.pid');
  if (fs.existsSync(pmPid)) {
    const pid = Number(fs.readFileSync(pmPid, 'utf8').split('\n')[0]);
    if (!isAlive(pid)) fs.rmSync(pmPid, { force: true });
  }
}

function portOwnerHint(port) {
  const ss = spawnSync('ss', ['-ltnpH', `sport = :${port}`], { encoding: 'utf8' });
  const m = ss.status === 0 ? /users:\(\("([^"]+)",pid=(\d+)/.exec(ss.stdout) : null;
  return m ? ` by ${m[1]} (pid ${m[2]})` : '';
}

function foreignPort(port, varName, what) {
  return new StackError(
    `port ${port} (${what}) is already in use${portOwnerHint(port)}, not by a server this stack ` +
      `started. Stop that program or choose another port with ${varName}=…`,
  );
}

// ---------------------------------------------------------------------------------------------
// Redis

function redisDir(node) {
  return path.join(STACK_DIR, `redis-${node.index}`);
}

function redisArgs(node) {
  const dir = redisDir(node);
  return [
    '--port', String(node.port),
    '--bind', node.host === 'localhost' ? '127.0.0.1' : node.host,
    '--save', '',
    '--appendonly', 'no',
    '--daemonize', 'no',
    '--dir', dir,
    '--pidfile', path.join(dir, 'redis.pid'),
    '--logfile', '',
  ];
}

async function startRedisNode(node) {
  const t0 = Date.now();
  mkdirp(redisDir(node));
  const handle = spawnChild(`redis-${node.index}`, 'redis-server', redisArgs(node), {
    env: process.env,
    record: { kind: 'redis', port: node.port },
  });
  node.handle = handle;
  const ready = await waitFor(async () => {
    if (handle.exitInfo) return true;
    return redisPing(node.host, node.port, 300);
  }, REDIS_READY_TIMEOUT_MS, 50);
  if (!ready || handle.exitInfo) {
    await terminate(handle, 'SIGKILL');
    throw new StackError(
      `redis ${node.addr} did not start (${exitDescription(handle.exitInfo)}); log ${handle.logFile}:\n${tail(handle.logFile)}`,
    );
  }
  info(`✓ redis ${node.addr} (${since(t0)})`);
}

async function stopRedisNode(node) {
  if (!node.handle || node.handle.exitInfo) return;
  const handle = node.handle;
  await redisCommand(node.host, node.port, ['SHUTDOWN', 'NOSAVE'], 3000);
  if (!(await waitExit(handle, STOP_TIMEOUT_MS))) await terminate(handle, 'SIGKILL');
  await waitFor(async () => !(await portAnswers(node.host, node.port, 200)), 5000);
  removePidFile(handle.name);
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL

function findPgBin() {
  const base = '/usr/lib/postgresql';
  let versions = [];
  try {
    versions = fs
      .readdirSync(base)
      .filter((v) => fs.existsSync(path.join(base, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
  } catch {
    /* not Debian layout */
  }
  if (versions.length) return path.join(base, versions[0], 'bin');
  const which = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' });
  if (which.status === 0 && which.stdout.trim()) return path.dirname(which.stdout.trim());
  return null;
}

function lookupUser(name) {
  try {
    for (const line of fs.readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const f = line.split(':');
      if (f[0] === name) return { uid: Number(f[2]), gid: Number(f[3]), home: f[5] };
    }
  } catch {
    /* no passwd */
  }
  return null;
}

/** Where the cluster lives and as whom it runs. initdb/postgres refuse root, so as root they run as
 * the `postgres` user, which must be able to reach the data directory. */
function postgresLayout() {
  const bin = findPgBin();
  const isRoot = process.getuid?.() === 0;
  const owner = isRoot ? lookupUser('postgres') : null;
  let dataDir = path.join(STACK_DIR, 'pg');
  let note = null;
  if (isRoot && owner) {
    mkdirp(STACK_DIR, 0o755);
    const probe = spawnSync('test', ['-x', STACK_DIR], { uid: owner.uid, gid: owner.gid });
    if (probe.status !== 0) {
      const hash = crypto.createHash('sha256').update(ROOT).digest('hex').slice(0, 10);
      const base = path.join('/var/tmp', `locklab-${hash}`);
      dataDir = path.join(base, 'pg');
      note = `the postgres user cannot reach ${STACK_DIR}; the cluster lives in ${dataDir}`;
    }
  }
  return { bin, isRoot, owner, dataDir, note, handle: null };
}

function asPgOwner(pg) {
  return pg.owner ? { uid: pg.owner.uid, gid: pg.owner.gid } : {};
}

function pgEnv(pg) {
  return {
    PATH: process.env.PATH,
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    HOME: pg.owner ? path.dirname(pg.dataDir) : process.env.HOME,
  };
}

function initCluster(pg) {
  if (fs.existsSync(path.join(pg.dataDir, 'PG_VERSION'))) return false;
  mkdirp(path.dirname(pg.dataDir), 0o755);
  fs.rmSync(pg.dataDir, { recursive: true, force: true });
  mkdirp(pg.dataDir, 0o700);
  if (pg.owner) fs.chownSync(pg.dataDir, pg.owner.uid, pg.owner.gid);
  const logFile = path.join(mkdirp(LOG_DIR), 'postgres-initdb.log');
  const result = spawnSync(
    path.join(pg.bin, 'initdb'),
    ['-D', pg.dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-locale'],
    { cwd: path.dirname(pg.dataDir), env: pgEnv(pg), encoding: 'utf8', ...asPgOwner(pg) },
  );
  fs.writeFileSync(logFile, `${result.stdout ?? ''}${result.stderr ?? ''}`);
  if (result.status !== 0) {
    throw new StackError(`initdb failed; log ${logFile}:\n${tail(logFile)}`);
  }
  return true;
}

async function startPostgres(cfg, pg) {
  const { database } = cfg;
  const t0 = Date.now();
  const created = initCluster(pg);
  const listen = database.host === 'localhost' ? 'localhost' : database.host;
  const handle = spawnChild(
    'postgres',
    path.join(pg.bin, 'postgres'),
    [
      '-D', pg.dataDir,
      '-c', `listen_addresses=${listen}`,
      '-c', `port=${database.port}`,
      '-c', 'max_connections=200',
      '-c', 'unix_socket_directories=',
      '-c', 'logging_collector=off',
    ],
    {
      cwd: path.dirname(pg.dataDir),
      env: pgEnv(pg),
      ...asPgOwner(pg),
      record: { kind: 'postgres', port: database.port, dataDir: pg.dataDir },
    },
  );
  pg.handle = handle;
  const ready = await waitFor(async () => {
    if (handle.exitInfo) return true;
    if (!(await portAnswers(database.host, database.port, 300))) return false;
    return psql(cfg, pg, 'postgres', 'SELECT 1').status === 0;
  }, PG_READY_TIMEOUT_MS, 100);
  if (!ready || handle.exitInfo) {
    await terminate(handle, 'SIGQUIT');
    throw new StackError(
      `postgres on port ${database.port} did not start (${exitDescription(handle.exitInfo)}); log ${handle.logFile}:\n${tail(handle.logFile)}`,
    );
  }
  ensureRoleAndDatabases(cfg, pg);
  ok(`postgres ${database.host}:${database.port} db ${database.name}${created ? ' (new cluster)' : ''}`, t0);
}

function psql(cfg, pg, db, sql) {
  return spawnSync(
    path.join(pg.bin, 'psql'),
    ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-h', connectHost(cfg.database.host), '-p', String(cfg.database.port), '-U', 'postgres', '-d', db],
    { input: sql, encoding: 'utf8', env: { ...process.env, PGCONNECT_TIMEOUT: '3' } },
  );
}

function sqlLiteral(s) {
  return `'${s.replace(/'/g, "''")}'`;
}

function sqlIdent(s) {
  return `"${s.replace(/"/g, '""')}"`;
}

function ensureRoleAndDatabases(cfg, pg) {
  const { user, password, name, shadowName } = cfg.database;
  const pw = password ? ` PASSWORD ${sqlLiteral(password)}` : '';
  const sql = `
SELECT format('CREATE ROLE %I LOGIN CREATEDB${pw.replace(/%/g, '%%')}', ${sqlLiteral(user)})
  WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = ${sqlLiteral(user)}) \\gexec
SELECT format('CREATE DATABASE %I OWNER %I', d, ${sqlLiteral(user)})
  FROM unnest(ARRAY[${sqlLiteral(name)}, ${sqlLiteral(shadowName)}]) AS d
  WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = d) \\gexec
ALTER DATABASE ${sqlIdent(name)} OWNER TO ${sqlIdent(user)};
`;
  const result = psql(cfg, pg, 'postgres', sql);
  if (result.status !== 0) {
    throw new StackError(`could not create role/database: ${result.stderr.trim()}`);
  }
}

async function stopPostgres(pg) {
  const handle = pg.handle;
  if (!handle || handle.exitInfo) return;
  signal(handle.pid, 'SIGINT', false); // fast shutdown, what `pg_ctl stop -m fast` sends
  if (!(await waitExit(handle, 20_000))) {
    signal(handle.pid, 'SIGQUIT', false);
    if (!(await waitExit(handle, 5000))) signal(handle.pid, 'SIGKILL');
    await waitExit(handle, 2000);
  }
  removePidFile(handle.name);
}

// ---------------------------------------------------------------------------------------------
// migrations and seed (files owned by the app; skipped with a warning while they do not exist)

function localBin(name) {
  return path.join(ROOT, 'node_modules', '.bin', name);
}

function runStep(label, command, args, env) {
  const t0 = Date.now();
  const logFile = path.join(mkdirp(LOG_DIR), `${label.replace(/[^a-z0-9]+/gi, '-')}.log`);
  const result = spawnSync(command, args, { cwd: ROOT, env, encoding: 'utf8' });
  fs.writeFileSync(logFile, `${result.stdout ?? ''}${result.stderr ?? ''}${result.error ? String(result.error) : ''}`);
  if (result.status !== 0) {
    throw new StackError(`${label} failed (${result.error?.message ?? `exit ${result.status}`}); log ${logFile}:\n${tail(logFile, 25)}`);
  }
  ok(label, t0);
}

function migrateAndSeed(env) {
  const schema = ['prisma/schema.prisma', 'prisma/schema'].find((p) => fs.existsSync(path.join(ROOT, p)));
  if (!schema || !fs.existsSync(localBin('prisma'))) {
    warn('prisma schema not found yet: skipping migrations');
  } else if (!fs.existsSync(path.join(ROOT, 'prisma', 'migrations'))) {
    warn('prisma/migrations not found yet: skipping prisma migrate deploy');
  } else {
    runStep('prisma migrate deploy', localBin('prisma'), ['migrate', 'deploy'], env);
  }
  if (!fs.existsSync(path.join(ROOT, 'prisma', 'seed.ts'))) {
    warn('prisma/seed.ts not found yet: skipping seed');
  } else {
    runStep('seed', localBin('tsx'), ['prisma/seed.ts'], env);
  }
}

// ---------------------------------------------------------------------------------------------
// app instances

function appEnv(stack, app) {
  return {
    ...process.env,
    ...stack.env,
    NODE_ENV: 'production',
    NEXT_TELEMETRY_DISABLED: '1',
    PORT: String(app.port),
    APP_INSTANCE: app.instance,
    LOCKLAB_STACK_ROOT: ROOT,
  };
}

/** 200 from /api/health is ready. While the app has no health route (404), any answer on / is.
 * With a fault injected (a Redis node or Postgres stopped) health may rightly say 503; then an
 * answer at all is enough to call a restarted instance ready. */
async function appReady(app, lenient) {
  const base = `http://127.0.0.1:${app.port}`;
  const status = await httpStatus(`${base}/api/health`, 2000);
  if (status === 200) return true;
  if (status === 404) return (await httpStatus(`${base}/`, 5000)) > 0;
  return lenient && status > 0;
}

function faultsActive(stack) {
  return (
    stack.cfg.redis.some((n) => n.managed && (!n.handle || n.handle.exitInfo)) ||
    (stack.pg.managed && (!stack.pg.handle || stack.pg.handle.exitInfo))
  );
}

async function startApp(stack, app) {
  const t0 = Date.now();
  app.state = 'starting';
  app.intentionalStop = false;
  const handle = spawnChild(app.instance, process.execPath, [NEXT_BIN, 'start', '-p', String(app.port), '-H', '127.0.0.1'], {
    env: appEnv(stack, app),
    record: { kind: 'app', port: app.port },
  });
  app.handle = handle;
  handle.exited.then((exit) => onAppExit(stack, app, handle, exit));
  const ready = await waitFor(async () => {
    if (handle.exitInfo) return true;
    return appReady(app, faultsActive(stack));
  }, APP_READY_TIMEOUT_MS, 250);
  if (!ready || handle.exitInfo) {
    const why = handle.exitInfo ? exitDescription(handle.exitInfo) : `not ready after ${APP_READY_TIMEOUT_MS / 1000} s`;
    if (!handle.exitInfo) {
      app.intentionalStop = true;
      await terminate(handle, 'SIGKILL');
    }
    app.state = 'stopped';
    throw new StackError(`${app.instance} on port ${app.port} did not start (${why}); log ${handle.logFile}:\n${tail(handle.logFile)}`);
  }
  app.state = 'running';
  return t0;
}

function onAppExit(stack, app, handle, exit) {
  if (app.handle !== handle) return;
  removePidFile(app.instance);
  if (stack.stopping || app.intentionalStop || app.state === 'starting') {
    if (app.state !== 'starting') app.state = 'stopped';
    return;
  }
  app.state = 'stopped';
  // A kill asked for through the control API (the lab's crash scenarios) is not a crash: only
  // unexpected exits count towards giving up on an instance that keeps dying.
  const now = Date.now();
  app.crashes = (app.crashes ?? []).filter((t) => now - t < 60_000);
  if (!app.killRequested) app.crashes.push(now);
  if (app.crashes.length > 5) {
    warn(`${app.instance} exited (${exitDescription(exit)}) ${app.crashes.length} times in a minute; not restarting. Log ${handle.logFile}`);
    return;
  }
  say(`… ${app.instance} exited (${exitDescription(exit)}); restarting`);
  app.restarting = (async () => {
    await sleep(app.killRequested ? 0 : 500);
    if (stack.stopping || app.handle !== handle) return;
    try {
      const t0 = await startApp(stack, app);
      say(`✓ ${app.instance} restarted, pid ${app.handle.pid} (${since(t0)})`);
    } catch (err) {
      warn(err.message);
    } finally {
      app.killRequested = false;
    }
  })();
}

async function stopApp(app) {
  if (!app.handle || app.handle.exitInfo) {
    app.state = 'stopped';
    return;
  }
  app.intentionalStop = true;
  await terminate(app.handle, 'SIGTERM', 5000);
  app.state = 'stopped';
}

// ---------------------------------------------------------------------------------------------
// nginx

function findNginx() {
  for (const p of ['/usr/sbin/nginx', '/usr/bin/nginx', '/usr/local/sbin/nginx', '/usr/local/bin/nginx', '/opt/homebrew/bin/nginx']) {
    if (fs.existsSync(p)) return p;
  }
  return 'nginx';
}

/** Substitutes ${NAME} placeholders; nginx's own $variables stay. */
export function renderTemplate(template, vars) {
  return template
    .split('\n')
    .map((line) =>
      line.trimStart().startsWith('#')
        ? line
        : line.replace(/\$\{([A-Z][A-Z0-9_]*)\}/g, (whole, name) => {
            if (!(name in vars)) throw new StackError(`nginx template: no value for \${${name}}`);
            return vars[name];
          }),
    )
    .join('\n');
}

function renderNginx(cfg) {
  const dir = mkdirp(path.join(STACK_DIR, 'nginx'));
  const temp = mkdirp(path.join(dir, 'temp'));
  for (const sub of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirp(path.join(temp, sub));
  const conf = renderTemplate(fs.readFileSync(NGINX_TEMPLATE, 'utf8'), {
    NGINX_PID: path.join(dir, 'nginx.pid'),
    NGINX_ERROR_LOG: path.join(LOG_DIR, 'nginx-error.log'),
    NGINX_ACCESS_LOG: `${path.join(LOG_DIR, 'nginx-access.log')} locklab buffer=64k flush=1s`,
    NGINX_TEMP_DIR: temp,
    NGINX_LISTEN: `127.0.0.1:${cfg.publicPort}`,
    APP_UPSTREAMS: cfg.apps
      .map((a) => `server 127.0.0.1:${a.port} max_fails=1 fail_timeout=5s;`)
      .join('\n        '),
  });
  const file = path.join(dir, 'nginx.conf');
  fs.writeFileSync(file, conf);
  return { dir, file };
}

async function startNginx(stack) {
  const t0 = Date.now();
  const { dir, file } = renderNginx(stack.cfg);
  const nginx = findNginx();
  const args = ['-p', `${dir}/`, '-c', file, '-e', path.join(LOG_DIR, 'nginx-error.log'), '-g', 'daemon off;'];
  const test = spawnSync(nginx, ['-t', ...args.slice(0, -2)], { encoding: 'utf8' });
  if (test.status !== 0) {
    throw new StackError(`nginx rejected ${file}:\n${(test.stderr || String(test.error)).trim()}`);
  }
  const handle = spawnChild('nginx', nginx, args, { env: process.env, record: { kind: 'nginx', port: stack.cfg.publicPort } });
  stack.nginx.handle = handle;
  const ready = await waitFor(async () => {
    if (handle.exitInfo) return true;
    return (await httpStatus(`http://127.0.0.1:${stack.cfg.publicPort}/lb-health`, 1000)) === 200;
  }, 10_000, 50);
  if (!ready || handle.exitInfo) {
    await terminate(handle, 'SIGKILL');
    throw new StackError(`nginx did not start (${exitDescription(handle.exitInfo)}); log ${handle.logFile}:\n${tail(handle.logFile)}\n${tail(path.join(LOG_DIR, 'nginx-error.log'))}`);
  }
  ok(`nginx http://127.0.0.1:${stack.cfg.publicPort} → ${stack.cfg.apps.map((a) => a.port).join(', ')}`, t0);
}

// ---------------------------------------------------------------------------------------------
// control API

function sendJson(res, status, body) {
  const text = `${JSON.stringify(body)}\n`;
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(text);
}

class HttpError extends Error {
  constructor(status, code, message) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.code = code;
  }
}

function tokenMatches(given, expected) {
  const a = Buffer.from(String(given ?? ''));
  const b = Buffer.from(expected);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

export async function getStatus(stack = current) {
  if (!stack) throw new StackError('stack is not running');
  const { cfg } = stack;
  const [redis, pgUp, nginxUp] = await Promise.all([
    Promise.all(
      cfg.redis.map(async (n) => ({
        index: n.index,
        addr: n.addr,
        up: await redisPing(n.host, n.port, 300),
        managed: n.managed,
        pid: n.handle && !n.handle.exitInfo ? n.handle.pid : null,
      })),
    ),
    portAnswers(cfg.database.host, cfg.database.port, 300),
    portAnswers('127.0.0.1', cfg.publicPort, 300),
  ]);
  return {
    redis,
    apps: cfg.apps.map((a) => ({
      index: a.index,
      port: a.port,
      instance: a.instance,
      state: a.state,
      managed: a.managed,
      pid: a.handle && !a.handle.exitInfo ? a.handle.pid : null,
    })),
    postgres: { up: pgUp, managed: stack.pg.managed, addr: `${cfg.database.host}:${cfg.database.port}` },
    nginx: { up: nginxUp, url: stack.env.PUBLIC_URL },
  };
}

function pick(list, n, what) {
  const item = list.find((x) => String(x.index) === n);
  if (!item) throw new HttpError(404, 'not_found', `no ${what} ${n} (there are ${list.length})`);
  if (!item.managed) {
    throw new HttpError(409, 'not_managed', `${what} ${n} is not controlled by the stack: ${item.unmanagedReason ?? 'it was already running when the stack started'}`);
  }
  return item;
}

async function startRedisAgain(node) {
  if (node.handle && !node.handle.exitInfo && (await redisPing(node.host, node.port))) return;
  await startRedisNode(node);
}

async function resumeApp(app) {
  if (app.state === 'paused' && app.handle && !app.handle.exitInfo) {
    signal(app.handle.pid, 'SIGCONT');
    app.state = 'running';
  }
}

async function startAppAgain(stack, app) {
  if (app.restarting) await app.restarting;
  if (app.handle && !app.handle.exitInfo) return resumeApp(app);
  app.crashes = [];
  await startApp(stack, app);
}

async function resetFaults(stack) {
  const { cfg } = stack;
  if (stack.pg.managed && (!stack.pg.handle || stack.pg.handle.exitInfo)) await startPostgres(cfg, stack.pg);
  await Promise.all(cfg.redis.filter((n) => n.managed).map((n) => startRedisAgain(n)));
  await Promise.all(cfg.apps.filter((a) => a.managed).map((a) => startAppAgain(stack, a)));
}

const routes = [
  ['GET', /^\/status$/, async (stack) => getStatus(stack)],
  ['POST', /^\/redis\/(\d+)\/stop$/, async (stack, [n]) => {
    const node = pick(stack.cfg.redis, n, 'redis node');
    await stopRedisNode(node);
    say(`… redis ${node.addr} stopped (control API)`);
    return { redis: node.index, addr: node.addr, up: false };
  }],
  ['POST', /^\/redis\/(\d+)\/start$/, async (stack, [n]) => {
    const node = pick(stack.cfg.redis, n, 'redis node');
    await startRedisAgain(node);
    return { redis: node.index, addr: node.addr, up: true, pid: node.handle?.pid ?? null };
  }],
  ['POST', /^\/apps\/(\d+)\/pause$/, async (stack, [n]) => {
    const app = pick(stack.cfg.apps, n, 'app');
    if (app.state !== 'running') throw new HttpError(409, 'not_running', `${app.instance} is ${app.state}`);
    signal(app.handle.pid, 'SIGSTOP');
    app.state = 'paused';
    say(`… ${app.instance} paused (SIGSTOP)`);
    return { instance: app.instance, state: app.state, pid: app.handle.pid };
  }],
  ['POST', /^\/apps\/(\d+)\/resume$/, async (stack, [n]) => {
    const app = pick(stack.cfg.apps, n, 'app');
    await resumeApp(app);
    return { instance: app.instance, state: app.state, pid: app.handle?.pid ?? null };
  }],
  ['POST', /^\/apps\/(\d+)\/kill$/, async (stack, [n]) => {
    const app = pick(stack.cfg.apps, n, 'app');
    if (!app.handle || app.handle.exitInfo) throw new HttpError(409, 'not_running', `${app.instance} is ${app.state}`);
    const oldPid = app.handle.pid;
    app.killRequested = true;
    signal(oldPid, 'SIGKILL');
    await app.handle.exited;
    await sleep(0); // let onAppExit schedule the restart
    if (app.restarting) await app.restarting;
    if (app.state !== 'running') throw new HttpError(500, 'restart_failed', `${app.instance} did not come back; see ${app.handle.logFile}`);
    return { instance: app.instance, state: app.state, killedPid: oldPid, pid: app.handle.pid };
  }],
  ['POST', /^\/apps\/(\d+)\/stop$/, async (stack, [n]) => {
    const app = pick(stack.cfg.apps, n, 'app');
    await stopApp(app);
    return { instance: app.instance, state: app.state };
  }],
  ['POST', /^\/apps\/(\d+)\/start$/, async (stack, [n]) => {
    const app = pick(stack.cfg.apps, n, 'app');
    await startAppAgain(stack, app);
    return { instance: app.instance, state: app.state, pid: app.handle?.pid ?? null };
  }],
  ['POST', /^\/postgres\/stop$/, async (stack) => {
    if (!stack.pg.managed) throw new HttpError(409, 'not_managed', 'postgres was already running when the stack started');
    await stopPostgres(stack.pg);
    say('… postgres stopped (control API)');
    return { postgres: { up: false } };
  }],
  ['POST', /^\/postgres\/start$/, async (stack) => {
    if (!stack.pg.managed) throw new HttpError(409, 'not_managed', 'postgres was already running when the stack started');
    if (!stack.pg.handle || stack.pg.handle.exitInfo) await startPostgres(stack.cfg, stack.pg);
    return { postgres: { up: true } };
  }],
  ['POST', /^\/reset-faults$/, async (stack) => {
    await resetFaults(stack);
    return getStatus(stack);
  }],
];

function startControlServer(stack) {
  let queue = Promise.resolve(); // one fault operation at a time; status is never queued
  const server = http.createServer(async (req, res) => {
    try {
      if (!tokenMatches(req.headers['x-stack-token'], stack.cfg.token)) {
        throw new HttpError(401, 'unauthorized', 'missing or wrong x-stack-token header (STACK_CONTROL_TOKEN)');
      }
      const url = new URL(req.url ?? '/', 'http://control');
      const pathOnly = url.pathname.replace(/\/+$/, '') || '/';
      const matches = routes.filter(([, re]) => re.test(pathOnly));
      if (matches.length === 0) throw new HttpError(404, 'not_found', `no route ${pathOnly}`);
      const route = matches.find(([method]) => method === req.method);
      if (!route) throw new HttpError(405, 'method_not_allowed', `${pathOnly} takes ${matches.map(([m]) => m).join(', ')}`);
      req.resume();
      if (stack.stopping) throw new HttpError(503, 'stopping', 'the stack is shutting down');
      const params = route[1].exec(pathOnly).slice(1);
      const run = () => route[2](stack, params);
      const result = req.method === 'GET' ? await run() : await (queue = queue.then(run, run));
      sendJson(res, 200, result);
    } catch (err) {
      if (err instanceof HttpError) sendJson(res, err.status, { code: err.code, message: err.message });
      else sendJson(res, 500, { code: 'internal', message: err instanceof Error ? err.message : String(err) });
    }
  });
  server.keepAliveTimeout = 1000;
  return new Promise((resolve, reject) => {
    server.once('error', (err) =>
      reject(err.code === 'EADDRINUSE' ? foreignPort(stack.cfg.controlPort, 'STACK_CONTROL_PORT', 'stack control API') : err),
    );
    server.listen(stack.cfg.controlPort, '127.0.0.1', () => resolve(server));
  });
}

// ---------------------------------------------------------------------------------------------
// start / stop

let current = null;
let stopping = null;

/**
 * The admin password: ADMIN_PASSWORD when set; otherwise one generated on the first start and kept
 * in .stack/admin-password (ignored by git), so it stays the same across demo runs.
 */
export function adminPassword() {
  if (process.env.ADMIN_PASSWORD) return process.env.ADMIN_PASSWORD;
  const file = path.join(STACK_DIR, 'admin-password');
  try {
    const saved = fs.readFileSync(file, 'utf8').trim();
    if (saved.length >= 8) return saved;
  } catch {
    // first start
  }
  const created = crypto.randomBytes(9).toString('base64url');
  fs.mkdirSync(STACK_DIR, { recursive: true });
  fs.writeFileSync(file, `${created}\n`, { mode: 0o600 });
  return created;
}

function stackEnv(cfg) {
  return {
    ADMIN_PASSWORD: adminPassword(),
    REDIS_NODES: cfg.redis.map((n) => n.addr).join(','),
    DATABASE_URL: cfg.database.url,
    APP_PORTS: cfg.apps.map((a) => a.port).join(','),
    PUBLIC_PORT: String(cfg.publicPort),
    PUBLIC_URL: `http://127.0.0.1:${cfg.publicPort}`,
    STACK_CONTROL_PORT: String(cfg.controlPort),
    STACK_CONTROL_URL: `http://127.0.0.1:${cfg.controlPort}`,
    STACK_CONTROL_TOKEN: cfg.token,
  };
}

/** Checks every port before anything starts, so a conflict fails fast with the variable to change. */
async function claimPorts(cfg, pg, opts) {
  const ownRedisDir = (n) => path.resolve(redisDir(n));
  for (const node of cfg.redis) {
    node.managed = true;
    if (!(await portAnswers(node.host, node.port))) {
      if (!LOCAL_HOSTS.has(node.host)) throw new StackError(`REDIS_NODES: ${node.addr} does not answer and is not local, so the stack cannot start it`);
      continue;
    }
    if (await redisPing(node.host, node.port)) {
      const dir = await redisConfigDir(node.host, node.port);
      if (dir && path.resolve(dir) === ownRedisDir(node)) {
        await redisShutdown(node.host, node.port); // ours, from a run whose pidfile is gone
        say(`✓ stopped stale redis ${node.addr} from a previous run`);
        continue;
      }
      if (cfg.redisExplicit) {
        node.managed = false;
        say(`✓ redis ${node.addr} (already running, used as is)`);
        continue;
      }
    }
    throw foreignPort(node.port, 'REDIS_NODES', `redis node ${node.index}`);
  }

  pg.managed = true;
  const db = cfg.database;
  if (await portAnswers(db.host, db.port)) {
    if (!cfg.databaseExplicit) throw foreignPort(db.port, 'DATABASE_URL', 'postgres');
    pg.managed = false;
    say(`✓ postgres ${db.host}:${db.port} (already running, used as is)`);
  } else if (!LOCAL_HOSTS.has(db.host)) {
    throw new StackError(`DATABASE_URL: ${db.host}:${db.port} does not answer and is not local, so the stack cannot start it`);
  } else if (!pg.bin) {
    throw new StackError('PostgreSQL server binaries not found (initdb); run: node scripts/bootstrap.mjs stack');
  }

  for (const app of cfg.apps) {
    app.managed = opts.apps !== false;
    app.state = 'stopped';
    if (await portAnswers('127.0.0.1', app.port)) {
      if (!cfg.appsExplicit) throw foreignPort(app.port, 'APP_PORTS', app.instance);
      app.managed = false;
      app.state = 'running';
      say(`✓ ${app.instance} http://127.0.0.1:${app.port} (already running, used as is)`);
    }
  }
  if (await portAnswers('127.0.0.1', cfg.publicPort)) throw foreignPort(cfg.publicPort, 'PUBLIC_PORT', 'nginx');
  if (await portAnswers('127.0.0.1', cfg.controlPort)) throw foreignPort(cfg.controlPort, 'STACK_CONTROL_PORT', 'stack control API');
}

/**
 * Starts Redis ×N, Postgres (+ migrate + seed), the app instances, nginx and the control API.
 * Resolves with { env, status(), stop() } once everything answers. On failure it stops what it
 * started and rejects with a StackError whose message says what to do.
 * @param {{quiet?: boolean, apps?: boolean, seed?: boolean, handleSignals?: boolean}} opts
 */
export async function startStack(opts = {}) {
  if (current) throw new StackError('stack already started in this process');
  quiet = Boolean(opts.quiet);
  const t0 = Date.now();
  const cfg = readConfig();
  mkdirp(LOG_DIR);
  mkdirp(PID_DIR);
  const pg = postgresLayout();
  await cleanStale(cfg, pg);
  writePidFile('supervisor', { pid: process.pid, kind: 'supervisor' });
  const stack = { cfg, pg, nginx: { handle: null }, env: stackEnv(cfg), control: null, stopping: false };
  current = stack;
  if (opts.handleSignals !== false) installSignalHandlers();
  try {
    await claimPorts(cfg, pg, opts);
    if (pg.note) say(`  note: ${pg.note}`);
    const pgStart = pg.managed ? startPostgres(cfg, pg) : Promise.resolve();
    const redisStart = (async () => {
      const t1 = Date.now();
      const managed = cfg.redis.filter((n) => n.managed);
      await Promise.all(managed.map((n) => startRedisNode(n)));
      if (quiet && managed.length) ok(`redis ×${managed.length} ${managed.map((n) => n.addr).join(' ')}`, t1);
    })();
    await Promise.all([pgStart, redisStart]);
    const migrateEnv = { ...process.env, ...stack.env };
    if (opts.seed !== false) migrateAndSeed(migrateEnv);
    stack.control = await startControlServer(stack);
    ok(`control API ${stack.env.STACK_CONTROL_URL}`);
    const managedApps = cfg.apps.filter((a) => a.managed);
    if (managedApps.length && !fs.existsSync(path.join(ROOT, '.next', 'BUILD_ID'))) {
      warn('no production build (.next/BUILD_ID); app instances not started. Run: node scripts/bootstrap.mjs stack');
      for (const a of managedApps) {
        a.managed = false;
        a.unmanagedReason = 'there was no production build to start';
      }
    } else {
      await Promise.all(
        managedApps.map(async (app) => {
          const started = await startApp(stack, app);
          ok(`${app.instance} http://127.0.0.1:${app.port} pid ${app.handle.pid}`, started);
        }),
      );
    }
    await startNginx(stack);
    fs.writeFileSync(ENV_FILE, `${Object.entries(stack.env).map(([k, v]) => `${k}=${v}`).join('\n')}\n`);
    say(`✓ stack ready in ${secondsSince(t0)} — logs in ${path.relative(process.cwd(), LOG_DIR) || LOG_DIR}`);
  } catch (err) {
    await stopStack();
    throw err;
  }
  return { env: { ...stack.env }, status: () => getStatus(stack), stop: stopStack };
}

/** Stops everything this process started, in order, and waits for each part to exit. */
export function stopStack() {
  if (stopping) return stopping;
  const stack = current;
  if (!stack) return Promise.resolve();
  stack.stopping = true;
  stopping = (async () => {
    const t0 = Date.now();
    stack.control?.close();
    stack.control?.closeAllConnections?.();
    await terminate(stack.nginx.handle, 'SIGTERM', 5000);
    if (stack.nginx.handle) removePidFile('nginx');
    await Promise.all(
      stack.cfg.apps.map(async (app) => {
        if (!app.handle) return;
        app.intentionalStop = true;
        await terminate(app.handle, 'SIGTERM', 5000); // SIGCONT first, so a paused app can exit
        app.state = 'stopped';
        removePidFile(app.instance);
      }),
    );
    await Promise.all(stack.cfg.redis.map((n) => stopRedisNode(n)));
    await stopPostgres(stack.pg);
    const left = [...children].map((h) => `${h.name} (pid ${h.pid})`);
    for (const h of children) signal(h.pid, 'SIGKILL');
    removePidFile('supervisor');
    fs.rmSync(ENV_FILE, { force: true });
    if (left.length) warn(`killed leftover processes: ${left.join(', ')}`);
    else if (stack.started) say(`✓ stack stopped (${since(t0)}), no process left`);
    current = null;
  })();
  return stopping;
}

let signalsInstalled = false;
function installSignalHandlers() {
  if (signalsInstalled) return;
  signalsInstalled = true;
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(sig, () => {
      if (stopping) return; // a second Ctrl-C while stopping: keep waiting for a clean stop
      say(`\n… ${sig}: stopping the stack`);
      stopStack().finally(() => process.exit(sig === 'SIGINT' ? 130 : 143));
    });
  }
  // Last resort if the supervisor dies of an exception: no child may outlive it.
  process.on('exit', () => {
    for (const h of children) {
      if (h.name === 'postgres') signal(h.pid, 'SIGQUIT', false);
      else {
        signal(h.pid, 'SIGCONT');
        signal(h.pid, 'SIGKILL');
      }
    }
  });
}

// ---------------------------------------------------------------------------------------------
// foreground use: node scripts/stack.mjs

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  startStack({ quiet: false }).then(
    ({ env }) => {
      say(`\nstore  ${env.PUBLIC_URL}\ncontrol ${env.STACK_CONTROL_URL} (x-stack-token: ${env.STACK_CONTROL_TOKEN})\nCtrl-C stops everything.`);
    },
    (err) => {
      console.error(`✗ ${err instanceof StackError ? err.message : err?.stack ?? err}`);
      process.exit(1);
    },
  );
}
