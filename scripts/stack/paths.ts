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

/** A system user's ids, from /etc/passwd; null when there is no such user. */
export function systemUser(name: string): { uid: number; gid: number; home: string | undefined } | null {
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

/**
 * Makes `dir` a directory only this user can enter (0700), as it is now or as an older run left it
 * (0755): the stack's secrets (stack.env, admin-password), its pidfiles and logs are nobody else's
 * on a shared laptop. With `passGid`, that group may pass through to names it knows, and list,
 * read or write nothing (0710); with `passMode` 0711, anyone may. Refuses a symlink or another user's directory rather than use it.
 */
export function makePrivateDir(dir: string, passGid?: number, passMode?: 0o711): string {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = fs.lstatSync(dir);
  if (!stat.isDirectory()) throw new StackError(`${dir} is not a directory (a symlink?): remove it and start again`);
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) {
    throw new StackError(`${dir} belongs to uid ${stat.uid}, not to this user (uid ${uid}): start the stack as its owner, or remove it`);
  }
  if (passGid !== undefined && stat.gid !== passGid) fs.lchownSync(dir, stat.uid, passGid);
  const mode = passMode ?? (passGid === undefined ? 0o700 : 0o710);
  if ((stat.mode & 0o7777) !== mode) fs.chmodSync(dir, mode);
  return dir;
}

/**
 * .stack: 0700. As root, Postgres and PgBouncer run as the `postgres` user (they refuse root) and
 * keep their cluster and config in .stack (.stack/pg, .stack/pgbouncer-1); PgBouncer with a group of
 * its own besides (its role's group id, by which the link grid's nft rules know its packets). So as
 * root .stack lets anyone pass through to names they know (0711) and list, read or write nothing in
 * it: its secrets (stack.env, admin-password) are root's 0600, its logs and pidfiles root's 0700,
 * the cluster and PgBouncer's config postgres' 0700/0600. Strict 0700 would put the cluster outside
 * .stack, where a docker volume on .stack no longer holds it.
 */
export function makeStackDir(): string {
  return process.getuid?.() === 0 ? makePrivateDir(STACK_DIR, undefined, 0o711) : makePrivateDir(STACK_DIR);
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
