// The stack runner's reaper: nothing the runner started may outlive it.
//
//   node scripts/stack/reaper.mjs <pid dir> <runner pid>
//
// The runner (scripts/stack/processes.ts, startReaper) starts this first, in a session of its own,
// with a pipe on its stdin whose other end only the runner holds (Node opens its pipes close-on-
// exec: no child inherits it). However the runner ends — a clean stop, an exception, Ctrl-C,
// SIGKILL, the OOM killer — the kernel closes that end and stdin ends here. Then every process
// group the runner's pidfiles name (each child leads its own: spawnChild is detached; a lab run's
// scenario runner is registered there by the app instance that starts it) gets SIGCONT (a paused
// one cannot act) and SIGTERM — Postgres' postmaster SIGQUIT, its immediate shutdown, which ends
// its backends (they live in sessions of their own) — and whatever is left after GRACE_MS gets
// SIGKILL. After a clean stop the runner has removed its pidfiles and there is nothing to do.
//
// Why not PR_SET_PDEATHSIG (`setpriv --pdeathsig`): the parent-death signal reaches only the
// process that asked for it, never its children (nginx's workers, a shell's `sleep`s, the load
// driver an app instance starts); the kernel clears it when a child changes its user (postgres
// and pgbouncer run as `postgres`) or execs a set-uid program; it fires when the *thread* that
// forked the child ends, not the process; and it sends one signal, with no SIGQUIT for Postgres
// and no SIGKILL for what ignores SIGTERM. Process groups are what the runner already stops its
// children by; this process stops the same groups when the runner cannot.
//
// Plain Node with only node: builtins: it must start in milliseconds and need nothing but Node.

import fs from 'node:fs';
import path from 'node:path';

const GRACE_MS = 2000; // SIGTERM (or SIGQUIT) → SIGKILL
const KILL_WAIT_MS = 1000;
const POLL_MS = 50;

const [pidDir, runnerArg] = process.argv.slice(2);
const runner = Number(runnerArg);
if (!pidDir || !Number.isInteger(runner) || runner <= 1) {
  console.error('usage: node scripts/stack/reaper.mjs <pid dir> <runner pid>');
  process.exit(2);
}

const log = (line) => console.log(`${new Date().toISOString()} reaper of runner ${runner}: ${line}`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** /proc/<pid>/stat's fields from field 3 (the state) on; null when there is no such process. */
function statFields(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** When the process started (field 22), or null: with the pid, it tells a reused pid apart. */
function startTime(pid) {
  const fields = statFields(pid);
  return fields && fields[0] !== 'Z' ? Number(fields[19]) : null;
}

/** A live (not zombie) process is still in the group. Without /proc: whether the group answers. */
function groupAlive(pgid) {
  let entries;
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    try {
      process.kill(-pgid, 0);
      return true;
    } catch (err) {
      return err.code === 'EPERM';
    }
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(entry);
    // fields[0] is the state (field 3), fields[2] the process group (field 5)
    if (fields && Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') return true;
  }
  return false;
}

function signal(pid, sig, group = true) {
  try {
    process.kill(group ? -pid : pid, sig);
  } catch {
    /* gone, or not a group leader */
  }
}

/** The runner's records: written by it (or for it, a lab runner), of a group still running. */
function recordsToStop() {
  let files = [];
  try {
    files = fs.readdirSync(pidDir).filter((file) => file.endsWith('.json'));
  } catch {
    return [];
  }
  const records = [];
  for (const file of files) {
    let rec;
    try {
      rec = JSON.parse(fs.readFileSync(path.join(pidDir, file), 'utf8'));
    } catch {
      continue;
    }
    if (rec.supervisor !== runner || rec.kind === 'supervisor' || !Number.isInteger(rec.pid) || rec.pid <= 1) continue;
    const started = startTime(rec.pid);
    // The leader lives: it is ours if it is the very process recorded (same start time). Its pid
    // is free again: the group lives on only if members remain, and its id cannot have been given
    // to anyone else while they do.
    const ours = started !== null ? rec.startTime === undefined || started === rec.startTime : groupAlive(rec.pid);
    if (ours) records.push({ ...rec, file });
  }
  return records;
}

async function waitGone(records, ms) {
  const deadline = Date.now() + ms;
  let left = records.filter((r) => groupAlive(r.pid));
  while (left.length && Date.now() < deadline) {
    await sleep(POLL_MS);
    left = left.filter((r) => groupAlive(r.pid));
  }
  return left;
}

async function sweep() {
  const records = recordsToStop();
  if (records.length) {
    log(`runner gone; stopping ${records.map((r) => `${r.file.replace(/\.json$/, '')} (${r.pid})`).join(', ')}`);
    for (const r of records) {
      signal(r.pid, 'SIGCONT');
      if (r.kind === 'postgres') signal(r.pid, 'SIGQUIT', false);
      else signal(r.pid, 'SIGTERM');
    }
    let left = await waitGone(records, GRACE_MS);
    if (left.length) {
      log(`SIGKILL to ${left.map((r) => r.pid).join(', ')}`);
      for (const r of left) {
        signal(r.pid, 'SIGKILL');
        signal(r.pid, 'SIGKILL', false);
      }
      left = await waitGone(left, KILL_WAIT_MS);
    }
    for (const r of records) if (!left.includes(r)) fs.rmSync(path.join(pidDir, r.file), { force: true });
    log(left.length ? `still running: ${left.map((r) => r.pid).join(', ')}` : 'every process stopped');
  }
  // A stack that is gone has no running env: its secrets go with it, as at a clean stop. Only while
  // the supervisor's pidfile is still this runner's (a new runner rewrites it before it starts anything).
  try {
    const supervisor = JSON.parse(fs.readFileSync(path.join(pidDir, 'supervisor.json'), 'utf8'));
    if (supervisor.pid === runner) {
      fs.rmSync(path.join(path.dirname(pidDir), 'stack.env'), { force: true });
      fs.rmSync(path.join(pidDir, 'supervisor.json'), { force: true });
    }
  } catch {
    /* a clean stop removed it */
  }
  process.exit(0);
}

let swept = false;
const onEnd = () => {
  if (swept) return;
  swept = true;
  void sweep();
};
process.stdin.on('data', () => {}); // the runner writes nothing: only the end matters
process.stdin.once('end', onEnd);
process.stdin.once('close', onEnd);
process.stdin.once('error', onEnd);
