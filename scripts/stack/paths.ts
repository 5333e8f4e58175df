import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { StackError } from "./errors";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
/** The stack's own files. LOCKLAB_STACK_DIR moves them: the process tests run fake runners with
 * a directory of their own, never beside a stack that may be running from this checkout. */
export const STACK_DIR = process.env.LOCKLAB_STACK_DIR ? path.resolve(process.env.LOCKLAB_STACK_DIR) : path.join(ROOT, ".stack");
export const LOG_DIR = path.join(STACK_DIR, "logs");
export const PID_DIR = path.join(STACK_DIR, "pids");
/** The running stack's variables, for other processes (bench, tests); removed when it stops. */
export const ENV_FILE = path.join(STACK_DIR, "stack.env");

export function mkdirp(dir: string, mode?: number): string {
  fs.mkdirSync(dir, { recursive: true, mode });
  return dir;
}

/**
 * Makes `dir` a directory only this user can enter (0700), as it is now or as an older run left it
 * (0755): the stack's secrets (stack.env, admin-password), its pidfiles and logs are nobody else's
 * on a shared laptop. Refuses a symlink or another user's directory rather than use it.
 */
export function makePrivateDir(dir: string): string {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = fs.lstatSync(dir);
  if (!stat.isDirectory()) throw new StackError(`${dir} is not a directory (a symlink?): remove it and start again`);
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) {
    throw new StackError(`${dir} belongs to uid ${stat.uid}, not to this user (uid ${uid}): start the stack as its owner, or remove it`);
  }
  if ((stat.mode & 0o777) !== 0o700) fs.chmodSync(dir, 0o700);
  return dir;
}

/**
 * Writes a file only its owner can read (0600), even over one an older run left readable (0644);
 * never through a symlink (O_NOFOLLOW). `owner` hands it to the user a server runs as.
 */
export function writePrivateFile(file: string, text: string, owner?: { uid: number; gid: number }): void {
  const { O_WRONLY, O_CREAT, O_TRUNC, O_NOFOLLOW } = fs.constants;
  const fd = fs.openSync(file, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0o600);
  try {
    fs.fchmodSync(fd, 0o600); // before the text: an old 0644 file is private before it holds anything
    if (owner) fs.fchownSync(fd, owner.uid, owner.gid);
    fs.writeSync(fd, text);
  } finally {
    fs.closeSync(fd);
  }
}
