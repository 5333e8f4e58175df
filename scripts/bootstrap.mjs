#!/usr/bin/env node
// One command from a fresh clone to a running Lock Lab:
//
//   node scripts/bootstrap.mjs demo    install what is missing, build, run the stack, print the URLs
//        demo --lan                    workshop mode: the store on this machine's LAN addresses too
//                                      (PUBLIC_HOST=0.0.0.0), with a QR code; admin stays local
//        demo --lan-admin              the same, and the admin pages answer from the LAN too
//   node scripts/bootstrap.mjs stack   the same, quieter (for developers; Ctrl-C stops everything)
//   node scripts/bootstrap.mjs test [vitest args…]
//                                      npm run lint, then run the stack, vitest and playwright against
//                                      it (SKIP_E2E=1 skips playwright), stop it, exit non-zero on failure
//   node scripts/bootstrap.mjs bench   run bench/run.ts against the running stack (.stack/stack.env
//                                      and a healthy PUBLIC_URL), or start one for it and stop it after
//
// Only node: builtins here and in apt-install.mjs: this runs before `npm ci`. The stack itself
// (scripts/stack/, TypeScript) is loaded through tsx once the packages are installed.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AptError, POLICY_RC_D, installWithoutStartingServices, removeLeftoverPolicy } from './apt-install.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MODES = new Set(['demo', 'stack', 'test', 'bench']);

const [mode, ...givenArgs] = process.argv.slice(2);
if (!MODES.has(mode)) {
  console.error('usage: node scripts/bootstrap.mjs demo|stack|test|bench [--lan|--lan-admin] [vitest args…]');
  process.exit(2);
}
// Workshop mode (demo and stack only): nginx listens beyond loopback; nothing else does.
const LAN_FLAGS = new Set(['--lan', '--lan-admin']);
const extraArgs = givenArgs.filter((arg) => !LAN_FLAGS.has(arg));
if (givenArgs.some((arg) => LAN_FLAGS.has(arg))) {
  if (mode !== 'demo' && mode !== 'stack') {
    console.error('--lan and --lan-admin are for demo and stack: tests and the bench stay on 127.0.0.1');
    process.exit(2);
  }
  process.env.PUBLIC_HOST = '0.0.0.0';
  if (givenArgs.includes('--lan-admin')) process.env.ADMIN_FROM_LAN = '1';
}

const say = (line) => console.log(line);
const fail = (message, code = 1) => {
  console.error(`✗ ${message}`);
  process.exit(code);
};
const ms = (t0) => `${((Date.now() - t0) / 1000).toFixed(1)} s`;
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const localBin = (name) => path.join(ROOT, 'node_modules', '.bin', name);

const major = Number(process.versions.node.split('.')[0]);
if (major < 20) fail(`Node ${process.versions.node} is too old; Lock Lab needs Node 20 or newer`);

process.env.NEXT_TELEMETRY_DISABLED = '1';
process.env.CHECKPOINT_DISABLE ??= '1'; // Prisma's update check: no network beyond the registry

function run(command, args, { env = process.env, label } = {}) {
  const t0 = Date.now();
  const result = spawnSync(command, args, { cwd: ROOT, env, stdio: 'inherit' });
  if (result.error) fail(`${label ?? command}: ${result.error.message}`);
  if (result.status !== 0) fail(`${label ?? `${command} ${args.join(' ')}`} failed (exit ${result.status ?? result.signal})`);
  say(`✓ ${label ?? command} (${ms(t0)})`);
}

function mtime(file) {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

// ---------------------------------------------------------------------------------------------
// 1. npm packages

function ensureNodeModules() {
  const lock = path.join(ROOT, 'package-lock.json');
  const installed = path.join(ROOT, 'node_modules', '.package-lock.json');
  if (fs.existsSync(installed) && mtime(installed) >= mtime(lock)) return;
  say('… installing npm packages (npm ci)');
  run(npm, ['ci', '--no-audit', '--no-fund'], { label: 'npm ci' });
}

// ---------------------------------------------------------------------------------------------
// 2. Debian packages

function onPath(bin) {
  const dirs = `${process.env.PATH ?? ''}:/usr/sbin:/usr/bin:/sbin:/bin:/usr/local/bin:/usr/local/sbin`.split(':');
  return dirs.some((d) => d && fs.existsSync(path.join(d, bin)));
}

function hasInitdb() {
  try {
    return fs.readdirSync('/usr/lib/postgresql').some((v) => fs.existsSync(path.join('/usr/lib/postgresql', v, 'bin', 'initdb')));
  } catch {
    return onPath('initdb');
  }
}

/** libfaketime's preload library, under the machine's multiarch triplet (x86_64-linux-gnu, …). */
function hasLibfaketime() {
  try {
    return fs.readdirSync('/usr/lib').some((d) => fs.existsSync(path.join('/usr/lib', d, 'faketime', 'libfaketime.so.1')));
  } catch {
    return false;
  }
}

function missingSystemPackages() {
  const needed = [
    ['redis-server', () => onPath('redis-server')],
    ['nginx', () => onPath('nginx')],
    ['postgresql', hasInitdb],
    // The articles' other lock services: a Sentinel-managed primary, a ZooKeeper ensemble, etcd.
    ['redis-sentinel', () => onPath('redis-sentinel')],
    ['zookeeper', () => fs.existsSync('/usr/share/java/zookeeper.jar')],
    ['etcd-server', () => onPath('etcd')],
    // Postgres advisory locks through a pooler: PgBouncer in transaction mode beside Postgres.
    // (The Redis Cluster needs nothing more: redis-server, and redis-cli from redis-tools, which it pulls in.)
    ['pgbouncer', () => onPath('pgbouncer')],
    // Network faults (cut links: nft, with a table owned by the stack) and real clock jumps (a Redis
    // node's clock moved by libfaketime). Every mode starts a stack that uses them.
    ['nftables', () => onPath('nft')],
    ['faketime', () => onPath('faketime') && hasLibfaketime()],
  ];
  // The workshop test makes its own network namespace (ip netns) to reach the store as a phone would.
  if (mode === 'test') needed.push(['iproute2', () => onPath('ip')]);
  if (mode === 'test' && process.env.SKIP_E2E !== '1') {
    needed.push(['chromium', () => fs.existsSync('/usr/bin/chromium') || onPath('chromium')]);
  }
  // The Korean, Japanese and Chinese pages (and people's names in those scripts) need CJK glyphs:
  // without them a browser on this machine (the tests' Chromium, the demo's projector) draws empty
  // boxes. The app names these fonts locally (app/fonts.ts) and downloads none; phones bring their own.
  if (mode === 'demo' || (mode === 'test' && process.env.SKIP_E2E !== '1')) {
    needed.push(['fonts-noto-cjk', () => fs.existsSync('/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc')]);
  }
  return needed.filter(([, present]) => !present()).map(([pkg]) => pkg);
}

/** A policy-rc.d a killed run left behind would stop every later install on this machine from
 * starting its services: removed at every start (only ours: apt-install.mjs knows its marker). */
function removeLeftoverPolicyRcD() {
  try {
    if (removeLeftoverPolicy() === 'removed') say(`✓ removed the ${POLICY_RC_D} an interrupted Lock Lab install left behind`);
  } catch (err) {
    console.error(`! ${POLICY_RC_D} was left behind by an interrupted Lock Lab install and could not be removed (${err.message}): remove it with sudo rm ${POLICY_RC_D}`);
  }
}

async function ensureSystemPackages() {
  removeLeftoverPolicyRcD();
  const missing = missingSystemPackages();
  if (missing.length === 0) return;
  const install = `apt-get install -y ${missing.join(' ')}`;
  if (process.getuid?.() !== 0) {
    console.error(`Lock Lab needs system packages that are not installed: ${missing.join(', ')}. Run:`);
    console.log(`sudo ${install}`);
    process.exit(1);
  }
  if (!onPath('apt-get')) fail(`missing ${missing.join(', ')} and no apt-get here; install them with your package manager`);
  const t0 = Date.now();
  try {
    // Debian's maintainer scripts would start the services on their default ports: a temporary
    // policy-rc.d forbids it, and is gone again however this ends (scripts/apt-install.mjs).
    await installWithoutStartingServices(missing);
  } catch (err) {
    fail(err instanceof AptError ? err.message : (err?.stack ?? String(err)));
  }
  say(`✓ apt-get install ${missing.join(' ')} (${ms(t0)})`);
  const still = missingSystemPackages();
  if (still.length) fail(`still missing after apt-get install: ${still.join(', ')}`);
}

// ---------------------------------------------------------------------------------------------
// 3. build

const SOURCE_DIRS = ['app', 'pages', 'lib', 'prisma', 'components', 'public', 'messages'];
const SOURCE_FILES = ['next.config.js', 'next.config.mjs', 'next.config.ts', 'package-lock.json', 'tsconfig.json', 'prisma.config.ts'];
const SKIP_DIRS = new Set(['node_modules', '.next', 'generated']);

function newestMtime(target) {
  let stat;
  try {
    stat = fs.statSync(target);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs; // a deleted file changes its directory's mtime
  for (const entry of fs.readdirSync(target, { withFileTypes: true })) {
    if (entry.isDirectory() && SKIP_DIRS.has(entry.name)) continue;
    newest = Math.max(newest, newestMtime(path.join(target, entry.name)));
  }
  return newest;
}

function prismaClientOutput() {
  try {
    const schema = fs.readFileSync(path.join(ROOT, 'prisma', 'schema.prisma'), 'utf8');
    const m = /generator\s+\w+\s*\{[^}]*?output\s*=\s*"([^"]+)"/s.exec(schema);
    if (m) return path.resolve(ROOT, 'prisma', m[1]);
  } catch {
    /* no schema yet */
  }
  return path.join(ROOT, 'node_modules', '.prisma', 'client');
}

function ensureBuild() {
  const hasSchema = fs.existsSync(path.join(ROOT, 'prisma', 'schema.prisma'));
  const buildId = path.join(ROOT, '.next', 'BUILD_ID');
  const sources = Math.max(...SOURCE_DIRS.map((d) => newestMtime(path.join(ROOT, d))), ...SOURCE_FILES.map((f) => mtime(path.join(ROOT, f))));
  const buildStale = mtime(buildId) === 0 || mtime(buildId) < sources;
  const client = prismaClientOutput();
  const clientStale = hasSchema && (!fs.existsSync(client) || mtime(client) < mtime(path.join(ROOT, 'prisma', 'schema.prisma')));
  if (hasSchema && (buildStale || clientStale)) run(path.join(ROOT, 'node_modules', '.bin', 'prisma'), ['generate'], { label: 'prisma generate' });
  if (!buildStale) return;
  if (!fs.existsSync(path.join(ROOT, 'app'))) {
    say('! no app/ directory yet: skipping next build');
    return;
  }
  say('… building the app (next build)');
  run(process.execPath, [path.join(ROOT, 'node_modules', 'next', 'dist', 'bin', 'next'), 'build'], { label: 'next build' });
}

// ---------------------------------------------------------------------------------------------
// 4. stack, then demo / stack / test

function runTool(label, command, args, env) {
  return new Promise((resolve) => {
    say(`\n… ${label}`);
    const child = spawn(command, args, { cwd: ROOT, env, stdio: 'inherit' });
    child.once('error', (err) => {
      console.error(`✗ ${label}: ${err.message}`);
      resolve(1);
    });
    child.once('exit', (code, sig) => resolve(code ?? (sig ? 1 : 0)));
  });
}

/** The env of a stack another process is running, if its env file is there and nginx answers. */
async function runningStackEnv() {
  let text;
  try {
    text = fs.readFileSync(path.join(ROOT, '.stack', 'stack.env'), 'utf8');
  } catch {
    return undefined;
  }
  const env = Object.fromEntries(
    text.split('\n').filter((line) => line.includes('=')).map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  if (!env.PUBLIC_URL) return undefined;
  try {
    const health = await fetch(new URL('/api/health', env.PUBLIC_URL), { signal: AbortSignal.timeout(2000) });
    return health.ok ? env : undefined;
  } catch {
    return undefined;
  }
}

/** What nginx exposes, as the stack runner's control API reports it. */
async function storeExposure(env) {
  try {
    const response = await fetch(`${env.STACK_CONTROL_URL}/status`, { headers: { 'x-stack-token': env.STACK_CONTROL_TOKEN }, signal: AbortSignal.timeout(5000) });
    const { nginx } = await response.json();
    return { lan: Boolean(nginx.lan), storeUrls: nginx.storeUrls ?? [env.PUBLIC_URL], adminFromLan: Boolean(nginx.adminFromLan) };
  } catch {
    return { lan: false, storeUrls: [env.PUBLIC_URL], adminFromLan: false };
  }
}

/** A QR code of the store's LAN address in the terminal, for phones to scan. */
async function printQr(url) {
  if (!url) return;
  try {
    const { default: QRCode } = await import('qrcode');
    say(`\n  scan to join: ${url}\n${await QRCode.toString(url, { type: 'terminal', small: true })}`);
  } catch (err) {
    say(`  (no QR code: ${err.message})`);
  }
}

async function main() {
  const t0 = Date.now();
  if (mode === 'bench') {
    const env = await runningStackEnv();
    if (env) {
      ensureNodeModules();
      say(`… using the running stack at ${env.PUBLIC_URL}`);
      process.exit(await runTool('benchmark', localBin('tsx'), ['--tsconfig', 'bench/tsconfig.json', 'bench/run.ts', ...extraArgs], { ...process.env, ...env }));
    }
  }
  ensureNodeModules();
  await ensureSystemPackages();
  ensureBuild();
  // The linters need no stack: they run before it starts, and their ✓ or ✗ joins the suites' at the end.
  const results = [];
  if (mode === 'test') results.push(['lint', await runTool('npm run lint', npm, ['run', 'lint'], process.env)]);

  // Loaded only now: the stack (scripts/stack/, TypeScript) runs through tsx, which npm ci has just
  // installed. register() lets this process import .ts files; nothing above may need it.
  const { register } = await import('tsx/esm/api');
  register();
  // And require(): a .ts file tsx loads as CommonJS (no "type": "module" here) requires its own
  // imports, which the ESM hook alone does not resolve.
  const { register: registerRequire } = await import('tsx/cjs/api');
  registerRequire();
  const { startStack, stopStack, StackError } = await import('./stack/stack.ts');
  let stack;
  try {
    stack = await startStack({ quiet: mode !== 'demo' });
  } catch (err) {
    fail(err instanceof StackError ? err.message : (err?.stack ?? String(err)));
  }
  const { env } = stack;

  if (mode === 'demo' || mode === 'stack') {
    if (mode === 'demo') {
      const exposure = await storeExposure(env);
      say(`
  Lock Lab is running (${ms(t0)})
    store   ${exposure.lan ? exposure.storeUrls.join('  ') : env.PUBLIC_URL}
    admin   ${env.PUBLIC_URL}/admin   (password: ${env.ADMIN_PASSWORD}${process.env.ADMIN_PASSWORD ? ', from ADMIN_PASSWORD' : ', generated; set ADMIN_PASSWORD to choose one'})
    live    ${env.PUBLIC_URL}/admin/live   (workshop projector view)`);
      if (exposure.lan) {
        say(`  exposed: the store on the LAN; the admin pages ${exposure.adminFromLan ? 'TOO (--lan-admin)' : 'on this machine only'}; the control API and every server on 127.0.0.1 only`);
        await printQr(exposure.storeUrls[0]);
      } else {
        say('  exposed: nothing beyond this machine (npm run demo -- --lan opens the store to the LAN for a workshop)');
      }
      say('  Ctrl-C stops everything.');
    } else {
      say(`  ${env.PUBLIC_URL} · control ${env.STACK_CONTROL_URL} · env in .stack/stack.env · Ctrl-C stops`);
    }
    return; // the control API keeps the process alive; signal handlers stop the stack
  }

  if (mode === 'bench') {
    const code = await runTool('benchmark', localBin('tsx'), ['--tsconfig', 'bench/tsconfig.json', 'bench/run.ts', ...extraArgs], { ...process.env, ...env });
    await stopStack();
    process.exit(code);
  }

  const testEnv = { ...process.env, ...env, BASE_URL: env.PUBLIC_URL };
  if (fs.existsSync('/usr/bin/chromium')) testEnv.CHROMIUM_PATH ??= '/usr/bin/chromium';
  results.push(['vitest', await runTool('vitest run', localBin('vitest'), ['run', ...extraArgs], testEnv)]);
  if (process.env.SKIP_E2E === '1') say('\n… playwright skipped (SKIP_E2E=1)');
  else results.push(['playwright', await runTool('playwright test', localBin('playwright'), ['test'], testEnv)]);
  await stopStack();
  const failed = results.filter(([, code]) => code !== 0);
  for (const [name, code] of results) say(`${code === 0 ? '✓' : '✗'} ${name}${code === 0 ? '' : ` (exit ${code})`}`);
  process.exit(failed.length ? 1 : 0);
}

main().catch((err) => fail(err?.stack ?? String(err)));
