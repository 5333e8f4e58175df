// Debian packages installed without their services starting, and the machine put back whatever
// happens: for scripts/bootstrap.mjs, so only node: builtins (it runs before `npm ci`).
//
// Debian's maintainer scripts start redis, nginx and a postgres cluster on their default ports as
// they install them. A /usr/sbin/policy-rc.d that answers 101 ("action forbidden") keeps them
// from starting. Left behind, that file would stop every later install or upgrade on the machine
// from (re)starting its services, for good: so the one written here carries a marker line naming
// the run that wrote it, is removed on every way out of that run (done, apt-get failed, an
// exception, process.exit, SIGINT, SIGTERM, SIGHUP), and a run that could not remove it (SIGKILL,
// a power cut) leaves it for the next start to remove. A policy-rc.d without our marker (Docker's
// base images ship one) is never written over or removed.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';

export const POLICY_RC_D = '/usr/sbin/policy-rc.d';

/** What the bootstrap before this one wrote (no marker naming a run): ours too, when left behind. */
const OLD_POLICY_TEXT = '#!/bin/sh\n# written by lock-lab bootstrap during apt-get install\nexit 101\n';

/** When a process started, in clock ticks since boot (/proc/<pid>/stat field 22): with the pid,
 * it names one process, never a later one that got the same pid. Null when there is no such process. */
export function processStart(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null; // field 22; fields[0] is field 3 (the state)
  } catch {
    return null;
  }
}

/** The file this process writes: the marker line names it by pid and start time. */
export function policyText(pid = process.pid, start = processStart(pid) ?? 'unknown') {
  return `#!/bin/sh\n# lock-lab bootstrap pid ${pid} start ${start}: keeps services from starting during its apt-get install; removed when it ends\nexit 101\n`;
}

/**
 * Whose file `text` is: { pid, start } of the Lock Lab run that wrote it (pid 0: the bootstrap
 * before this one, which named no run), or null when it is not exactly what we write.
 */
export function policyOwner(text) {
  if (text === OLD_POLICY_TEXT) return { pid: 0, start: null };
  const m = /^# lock-lab bootstrap pid (\d+) start (\S+):/m.exec(text);
  if (!m) return null;
  const owner = { pid: Number(m[1]), start: m[2] };
  return text === policyText(owner.pid, owner.start) ? owner : null;
}

/** The file's text, never through a symlink (null: absent, a symlink, or not a file). */
function readPolicy(policyPath) {
  let fd;
  try {
    fd = fs.openSync(policyPath, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    if (!fs.fstatSync(fd).isFile()) return null;
    return fs.readFileSync(fd, 'utf8');
  } catch {
    return null;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * At start: removes a policy-rc.d a Lock Lab run left behind (it was killed, or the machine went
 * down, while apt-get ran). Returns what it found: 'none', 'foreign' (someone else's: left alone),
 * 'in-use' (a Lock Lab run that is still alive is installing now: left to it) or 'removed'.
 */
export function removeLeftoverPolicy(policyPath = POLICY_RC_D) {
  const text = readPolicy(policyPath);
  if (text === null) {
    try {
      fs.lstatSync(policyPath);
      return 'foreign'; // a symlink or something else that is not our file
    } catch {
      return 'none';
    }
  }
  const owner = policyOwner(text);
  if (!owner) return 'foreign';
  if (owner.pid > 0 && owner.start !== 'unknown' && processStart(owner.pid) === owner.start) return 'in-use';
  fs.rmSync(policyPath, { force: true });
  return 'removed';
}

/** Removes the file only while it is still the one this process wrote. */
function removeOwnPolicy(policyPath, text) {
  if (readPolicy(policyPath) === text) fs.rmSync(policyPath, { force: true });
}

export class AptError extends Error {
  name = 'AptError';
}

/** One apt-get run, its output on this terminal; rejects with an AptError unless it exits 0.
 * `onKilled` hears the signal that killed it: the one a whole job got (Ctrl-C), whose delivery
 * to this process may come after apt-get's end. */
function aptGet(args, env, onKilled) {
  return new Promise((resolve, reject) => {
    const child = spawn('apt-get', args, { env, stdio: 'inherit' });
    child.once('error', (err) => reject(new AptError(`apt-get ${args[0]}: ${err.message}`)));
    child.once('close', (code, signal) => {
      if (signal) onKilled(signal);
      if (code === 0) resolve();
      else reject(new AptError(`apt-get ${args.join(' ')} failed (${signal ? `killed by ${signal}` : `exit ${code}`})`));
    });
  });
}

/**
 * `apt-get update` and `apt-get install -y <packages>` with a policy-rc.d of ours in place (unless
 * the machine has one of its own already, which does the same). Rejects with an AptError when
 * apt-get fails; the file is gone by then, and on every other way this process ends.
 *
 * A signal (SIGINT, SIGTERM, SIGHUP) is acted on once apt-get has ended, never before: removing
 * the file while dpkg still configures packages would let their services start. Ctrl-C reaches
 * apt-get too (one process group) and ends it; a SIGTERM sent to this process alone lets apt-get
 * finish (a dpkg stopped midway leaves packages half-configured). Then the file goes and this
 * process exits 128 + the signal's number.
 *
 * `policyPath` is for tests only: they point it at a file of their own, never at the machine's.
 */
export async function installWithoutStartingServices(packages, { policyPath = POLICY_RC_D, env = process.env } = {}) {
  const text = policyText();
  let ours = false;
  try {
    // O_EXCL: a file that appeared since anyone looked is someone else's, never written over.
    fs.writeFileSync(policyPath, text, { mode: 0o755, flag: 'wx' });
    ours = true;
  } catch (err) {
    if (err.code !== 'EEXIST') throw err;
  }
  const putBack = () => {
    if (ours) removeOwnPolicy(policyPath, text);
  };
  let interrupted = null;
  const onSignal = (sig) => {
    interrupted ??= sig;
  };
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  process.on('exit', putBack); // process.exit() anywhere runs no finally, but runs this
  for (const sig of signals) process.on(sig, onSignal);
  try {
    const aptEnv = { ...env, DEBIAN_FRONTEND: 'noninteractive' };
    const onKilled = (sig) => {
      if (signals.includes(sig)) onSignal(sig);
    };
    await aptGet(['update'], aptEnv, onKilled);
    if (!interrupted) await aptGet(['install', '-y', ...packages], aptEnv, onKilled);
  } finally {
    putBack();
    for (const sig of signals) process.off(sig, onSignal);
    process.off('exit', putBack);
    if (interrupted) {
      console.error(`✗ ${interrupted} during apt-get: stopped`);
      process.exit(128 + (os.constants.signals[interrupted] ?? 0));
    }
  }
}
