import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * The files of the processes an app instance starts (a load run's driver, a lab run's scenario
 * runner): their logs. Under the stack runner (scripts/stack), the instance is told where they go
 * (LOCKLAB_LOG_DIR: .stack/logs, in a .stack that is its owner's alone).
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
