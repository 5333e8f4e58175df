import { type ChildProcess, type SpawnOptions, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * The files of the processes an app instance starts (a load run's driver, a lab run's scenario
 * runner): their logs, and for one that leaves the instance's process group, a pidfile. Under
 * the stack runner (scripts/stack), the instance is told where its files go (LOCKLAB_LOG_DIR,
 * LOCKLAB_PID_DIR: in .stack, which is its owner's alone) and which runner it belongs to
 * (LOCKLAB_SUPERVISOR_PID).
 */

let privateLogDir: string | null = null;

/**
 * The stack's log directory; outside the stack (`next dev`, a test), one of this process's own
 * made by mkdtemp (0700). Never a predictable name in /tmp: another user could make it first, or
 * leave a symlink there to a file of root's for a root process to append to.
 */
export function runLogDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.LOCKLAB_LOG_DIR) return env.LOCKLAB_LOG_DIR;
  privateLogDir ??= fs.mkdtempSync(path.join(os.tmpdir(), "lock-lab-logs-"));
  return privateLogDir;
}

/** Opens `name` in runLogDir() to append (0600, never through a symlink). The caller hands the
 * descriptor to a child and closes its own copy. */
export function openRunLog(name: string, env: NodeJS.ProcessEnv = process.env): { fd: number; file: string } {
  const file = path.join(runLogDir(env), name);
  const { O_WRONLY, O_APPEND, O_CREAT, O_NOFOLLOW } = fs.constants;
  return { fd: fs.openSync(file, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW, 0o600), file };
}

/** When a process started (/proc/<pid>/stat field 22, clock ticks since boot): with its pid, it
 * names that process and never a later one given the same pid. Undefined without /proc. */
export function processStartTime(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const value = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]); // [0] is field 3
    return Number.isFinite(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The pidfile kind of a lab run's scenario runner (scripts/stack/stale.ts stops it). */
export const LAB_RUNNER_KIND = "lab-runner";

/**
 * Starts a child that must outlive the instance that starts it (a lab scenario may kill that very
 * instance) but never the stack: detached into its own process group, so a signal to the
 * instance's group misses it, and registered in the stack's pid directory as the runner's, so the
 * runner's stop, its reaper (if the runner is killed) and the next start's stale cleanup find and
 * stop it. The pidfile goes when the child exits while this instance lives; one left by an
 * instance that died first names a dead pid, which every reader forgets. Outside the stack there is
 * no runner to outlive, and no pidfile.
 */
export function spawnRegistered(
  name: string,
  kind: string,
  command: string,
  args: readonly string[],
  options: Omit<SpawnOptions, "detached">,
  env: NodeJS.ProcessEnv = process.env,
): ChildProcess {
  const child = spawn(command, args, { ...options, detached: true });
  const pidDir = env.LOCKLAB_PID_DIR;
  if (!child.pid || !pidDir) return child;
  const file = path.join(pidDir, `${name}.json`);
  const record = { pid: child.pid, kind, supervisor: Number(env.LOCKLAB_SUPERVISOR_PID) || undefined, startTime: processStartTime(child.pid) };
  try {
    fs.writeFileSync(file, `${JSON.stringify(record)}\n`, { mode: 0o600 });
  } catch (error) {
    // Unregistered, it could outlive the stack: it does not run at all.
    process.kill(-child.pid, "SIGKILL");
    throw error;
  }
  child.once("exit", () => fs.rmSync(file, { force: true }));
  return child;
}
