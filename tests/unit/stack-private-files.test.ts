import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// What another user of the laptop could read or plant: the stack's directory, its secret files,
// and the directory under /var/tmp that holds Postgres' cluster when the postgres user cannot
// reach .stack (a checkout in root's 0700 home). Real files in a directory of the test's own
// (LOCKLAB_STACK_DIR), never .stack; as root, tried as `nobody` and as `postgres`.

const base = fs.mkdtempSync(path.join(os.tmpdir(), "locklab-private-"));
const stackDir = path.join(base, "stack");
const isRoot = process.getuid?.() === 0;
/** Someone else: `nobody` (65534) on Debian. */
const OTHER = { uid: 65534, gid: 65534 };

type Paths = typeof import("../../scripts/stack/paths");
type Cluster = typeof import("../../scripts/stack/services/postgres-cluster");
type Stack = typeof import("../../scripts/stack/stack");
let paths: Paths;
let postgres: { uid: number; gid: number } | null = null;
let cluster: Cluster;
let stack: Stack;
const savedStackDir = process.env.LOCKLAB_STACK_DIR;
const savedPassword = process.env.ADMIN_PASSWORD;

beforeAll(async () => {
  process.env.LOCKLAB_STACK_DIR = stackDir; // read once, when paths.ts loads
  delete process.env.ADMIN_PASSWORD;
  paths = await import("../../scripts/stack/paths");
  postgres = paths.systemUser("postgres");
  cluster = await import("../../scripts/stack/services/postgres-cluster");
  stack = await import("../../scripts/stack/stack");
});

afterAll(() => {
  if (savedStackDir === undefined) delete process.env.LOCKLAB_STACK_DIR;
  else process.env.LOCKLAB_STACK_DIR = savedStackDir;
  if (savedPassword !== undefined) process.env.ADMIN_PASSWORD = savedPassword;
  fs.rmSync(base, { recursive: true, force: true });
});

const modeOf = (file: string) => fs.lstatSync(file).mode & 0o777;

/** Runs `sh -c script` as another user; true when it succeeds. */
const as = (user: { uid: number; gid: number }, script: string) =>
  spawnSync("sh", ["-c", script], { uid: user.uid, gid: user.gid, stdio: "ignore" }).status === 0;

describe(".stack and its secrets", () => {
  it("an older run's 0755 .stack and 0644 admin-password become private, the password kept", () => {
    fs.mkdirSync(stackDir, { mode: 0o755 });
    fs.chmodSync(stackDir, 0o755);
    fs.writeFileSync(path.join(stackDir, "admin-password"), "kept-password-1\n", { mode: 0o644 });
    fs.chmodSync(path.join(stackDir, "admin-password"), 0o644);
    expect(paths.STACK_DIR).toBe(stackDir);

    expect(stack.adminPassword()).toBe("kept-password-1");
    // As root: root's, and others may only pass through (0711) to the cluster and PgBouncer's config.
    expect(modeOf(stackDir)).toBe(isRoot ? 0o711 : 0o700);
    expect(modeOf(path.join(stackDir, "admin-password"))).toBe(0o600);
  });

  it.runIf(isRoot)("another user can neither list .stack nor read a secret in it; postgres reaches only its own cluster", () => {
    fs.chmodSync(base, 0o755); // the checkout around .stack is open to all, as a repository usually is
    const secret = path.join(stackDir, "stack.env");
    paths.writePrivateFile(secret, "ADMIN_PASSWORD=x\n");
    expect(as(OTHER, `ls ${stackDir}`)).toBe(false);
    expect(as(OTHER, `cat ${secret}`)).toBe(false);
    expect(as(OTHER, `touch ${stackDir}/planted`)).toBe(false);
    if (!postgres) return;
    const cluster = path.join(stackDir, "pg");
    fs.mkdirSync(cluster, { mode: 0o700 });
    fs.chownSync(cluster, postgres.uid, postgres.gid);
    expect(as(postgres, `touch ${cluster}/PG_VERSION`)).toBe(true);
    expect(as(postgres, `ls ${stackDir}`)).toBe(false);
    expect(as(postgres, `cat ${secret}`)).toBe(false);
    expect(as(postgres, `cat ${path.join(stackDir, "admin-password")}`)).toBe(false);
    expect(as(postgres, `touch ${stackDir}/planted`)).toBe(false);
    fs.rmSync(cluster, { recursive: true });
  });

  it("a first password is made 0600", () => {
    fs.rmSync(path.join(stackDir, "admin-password"));
    const made = stack.adminPassword();
    expect(made.length).toBeGreaterThanOrEqual(8);
    expect(modeOf(path.join(stackDir, "admin-password"))).toBe(0o600);
  });

  it("stack.env is written 0600 over a readable one, and never through a symlink", () => {
    const env = path.join(stackDir, "stack.env");
    fs.writeFileSync(env, "OLD=1\n", { mode: 0o644 });
    fs.chmodSync(env, 0o644);
    paths.writePrivateFile(env, "ADMIN_PASSWORD=x\nSTACK_CONTROL_TOKEN=y\n");
    expect(modeOf(env)).toBe(0o600);
    expect(fs.readFileSync(env, "utf8")).toBe("ADMIN_PASSWORD=x\nSTACK_CONTROL_TOKEN=y\n");

    const elsewhere = path.join(base, "elsewhere");
    fs.writeFileSync(elsewhere, "untouched\n");
    fs.rmSync(env);
    fs.symlinkSync(elsewhere, env);
    expect(() => paths.writePrivateFile(env, "ADMIN_PASSWORD=x\n")).toThrow(/ELOOP/);
    expect(fs.readFileSync(elsewhere, "utf8")).toBe("untouched\n");
  });

  it("a .stack that is a symlink, or another user's, is refused", () => {
    const link = path.join(base, "linked-stack");
    fs.symlinkSync(base, link);
    expect(() => paths.makePrivateDir(link)).toThrow(/not a directory/);
    if (!isRoot) return;
    const theirs = path.join(base, "theirs");
    fs.mkdirSync(theirs);
    fs.chownSync(theirs, OTHER.uid, OTHER.gid);
    expect(() => paths.makePrivateDir(theirs)).toThrow(/belongs to uid 65534/);
  });
});

describe("Postgres' fallback directory when the postgres user cannot reach .stack", () => {
  const parent = path.join(base, "var-tmp");
  const record = path.join(base, "pg-location");

  it("is made by mkdtemp (0711, ours), recorded, and found again at the next start", () => {
    fs.mkdirSync(parent, { mode: 0o1777 });
    const dir = cluster.fallbackDir(parent, record);
    expect(path.dirname(dir)).toBe(parent);
    expect(path.basename(dir)).toMatch(/^locklab-[0-9a-f]{10}-\w{6}$/);
    expect(modeOf(dir)).toBe(0o711);
    expect(fs.lstatSync(dir).uid).toBe(process.getuid?.());
    expect(fs.readFileSync(record, "utf8")).toBe(`${dir}\n`);
    expect(modeOf(record)).toBe(0o600);
    expect(cluster.fallbackDir(parent, record)).toBe(dir);
    fs.rmSync(dir, { recursive: true });
    fs.rmSync(record);
  });

  it("a symlink planted at the old predictable name is never followed or used", () => {
    const target = path.join(base, "planted-target");
    fs.mkdirSync(target);
    const legacy = path.join(parent, path.basename(cluster.fallbackDir(parent, record)).replace(/-\w{6}$/, ""));
    fs.rmSync(record);
    fs.symlinkSync(target, legacy);
    const dir = cluster.fallbackDir(parent, record);
    expect(dir).not.toBe(legacy);
    expect(fs.lstatSync(legacy).isSymbolicLink()).toBe(true);
    expect(fs.readdirSync(target)).toEqual([]);
    expect(modeOf(target)).toBe(0o755);
    fs.rmSync(legacy);
  });

  it.runIf(isRoot)("a directory another user made at the old name, or recorded, is not used; root's old one is (it holds the cluster)", () => {
    const legacy = path.join(parent, path.basename(cluster.fallbackDir(parent, record)).replace(/-\w{6}$/, ""));
    fs.mkdirSync(legacy);
    fs.chownSync(legacy, OTHER.uid, OTHER.gid);
    fs.rmSync(record);
    expect(cluster.fallbackDir(parent, record)).not.toBe(legacy);

    // The record names their directory: not ours, so a fresh one.
    fs.writeFileSync(record, `${legacy}\n`);
    expect(cluster.fallbackDir(parent, record)).not.toBe(legacy);

    // The old run's own: root's, nobody else may write in it.
    fs.chownSync(legacy, 0, 0);
    fs.chmodSync(legacy, 0o755);
    fs.rmSync(record);
    expect(cluster.fallbackDir(parent, record)).toBe(legacy);
    expect(modeOf(legacy)).toBe(0o711);
    // Group- or world-writable: someone may have put things in it.
    fs.chmodSync(legacy, 0o777);
    expect(cluster.isOwnFallbackDir(legacy, parent)).toBe(false);
  });
});
