import { type ChildProcess, spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";

// Nothing outlives the stack runner. A fake runner (tests/fixtures/fake-runner.ts: the real
// spawnChild and reaper, no servers) starts children that have children, one deaf to SIGTERM, one
// paused, a Postgres stand-in and an app that starts a lab run's runner in a process group of its
// own; then it is killed as the OOM killer would, or stopped. Every process it started, and theirs,
// carries a mark in its environment, which is how the test finds them all in /proc.

const FIXTURE = path.resolve(__dirname, "../fixtures/fake-runner.ts");
/** Starting the fake runner (tsx) and its children takes a second or two on a busy 2-core machine. */
const TEST_TIMEOUT_MS = 60_000;
const ROOT = path.resolve(__dirname, "../..");
const dirs: string[] = [];
const marks: string[] = [];

/** The live (not zombie) processes whose environment carries `mark`. */
function marked(mark: string): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
      if (state === "Z" || state === "X") continue;
      if (fs.readFileSync(`/proc/${entry}/environ`, "utf8").split("\0").includes(`LOCKLAB_REAPER_TEST=${mark}`)) found.push(Number(entry));
    } catch {
      /* gone meanwhile */
    }
  }
  return found;
}

function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/^[ZX]$/.test(stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3));
  } catch {
    return false;
  }
}

/** Polls `check` every 50 ms until true or `ms` have passed; returns how long it took, or null. */
async function within(ms: number, check: () => boolean): Promise<number | null> {
  const t0 = Date.now();
  for (let i = 0; i <= ms / 50; i++) {
    if (check()) return Date.now() - t0;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return check() ? Date.now() - t0 : null;
}

function killMarked(mark: string): void {
  for (const pid of marked(mark)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      /* gone */
    }
  }
}

/** The reaper watching `runner` (it has no mark: it gets a bare environment). */
function reaperOf(runner: number): number | undefined {
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      if (argv[1]?.endsWith("scripts/stack/reaper.mjs") && argv[3] === String(runner) && alive(Number(entry))) return Number(entry);
    } catch {
      /* gone */
    }
  }
  return undefined;
}

interface FakeRunner {
  readonly child: ChildProcess;
  readonly mark: string;
  readonly stackDir: string;
  readonly output: () => string;
}

async function startFakeRunner(): Promise<FakeRunner> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "locklab-reaper-"));
  dirs.push(dir);
  const mark = crypto.randomUUID();
  marks.push(mark);
  const stackDir = path.join(dir, "stack");
  const child = spawn(process.execPath, ["--import", "tsx", FIXTURE], {
    cwd: ROOT,
    env: { ...process.env, LOCKLAB_STACK_DIR: stackDir, LOCKLAB_REAPER_TEST: mark },
    stdio: ["pipe", "pipe", "pipe"], // if this test process dies, the closed pipe ends the fake runner
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk));
  const ready = await within(30_000, () => output.includes("ready") || child.exitCode !== null);
  if (ready === null || !output.includes("ready")) throw new Error(`the fake runner did not get ready:\n${output}`);
  return { child, mark, stackDir, output: () => output };
}

afterEach(() => {
  for (const mark of marks.splice(0)) killMarked(mark); // a failed test leaves nothing running
});

afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

describe("nothing outlives the stack runner", () => {
  it("SIGKILL of the runner: within 5 s no process it started is left, grandchildren, a paused one, one deaf to SIGTERM and the lab runner included", async () => {
    const runner = await startFakeRunner();
    const pid = runner.child.pid!;
    const before = marked(runner.mark);
    // The runner, 3 × (sh + 2 sleeps), the Postgres stand-in, the app, its driver stand-in, the
    // lab runner (sh + 2 sleeps).
    expect(before.length).toBeGreaterThanOrEqual(16);
    const reaper = reaperOf(pid);
    expect(reaper).toBeDefined();
    const labRunner = JSON.parse(fs.readFileSync(path.join(runner.stackDir, "pids", "lab-run-1.json"), "utf8")) as { pid: number; supervisor: number };
    expect(labRunner.supervisor).toBe(pid);
    expect(before).toContain(labRunner.pid);

    process.kill(pid, "SIGKILL");
    const took = await within(5000, () => marked(runner.mark).length === 0);
    expect(took, `still running after 5 s: ${marked(runner.mark).join(", ")}`).not.toBeNull();
    expect(await within(1000, () => !alive(reaper!))).not.toBeNull(); // and the reaper itself goes

    // Postgres got its immediate shutdown (SIGQUIT), not a SIGTERM it ignores.
    expect(fs.readFileSync(path.join(runner.stackDir, "postmaster-got"), "utf8")).toBe("SIGQUIT");
    // As after a clean stop: no pidfiles, and the dead stack's secrets gone.
    expect(fs.readdirSync(path.join(runner.stackDir, "pids"))).toEqual([]);
    expect(fs.existsSync(path.join(runner.stackDir, "stack.env"))).toBe(false);
    const log = fs.readFileSync(path.join(runner.stackDir, "logs", "reaper.log"), "utf8");
    expect(log).toContain("SIGKILL to"); // the one deaf to SIGTERM needed it
    expect(log).toContain("every process stopped");
  }, TEST_TIMEOUT_MS);

  it("a clean stop stops the lab runner itself, before its children; the reaper finds nothing left", async () => {
    const runner = await startFakeRunner();
    const reaper = reaperOf(runner.child.pid!);
    runner.child.kill("SIGTERM");
    expect(await within(10_000, () => runner.child.exitCode !== null)).not.toBeNull();
    expect(runner.output()).toMatch(/✓ stopped lab-run-1 \(pid \d+\)/);
    expect(await within(3000, () => marked(runner.mark).length === 0)).not.toBeNull();
    expect(await within(1000, () => reaper === undefined || !alive(reaper))).not.toBeNull();
    expect(fs.readFileSync(path.join(runner.stackDir, "logs", "reaper.log"), "utf8")).not.toContain("runner gone; stopping");
  }, TEST_TIMEOUT_MS);
});

describe("the next start's stale cleanup and a lab runner's pidfile", () => {
  it("stops a lab runner a dead runner left, and never a process that merely got its pid", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "locklab-stale-"));
    dirs.push(dir);
    const mark = crypto.randomUUID();
    marks.push(mark);
    const savedStackDir = process.env.LOCKLAB_STACK_DIR;
    process.env.LOCKLAB_STACK_DIR = path.join(dir, "stack"); // read once, when paths.ts loads
    const { cleanStale } = await import("../../scripts/stack/stale");
    const { PID_DIR } = await import("../../scripts/stack/paths");
    const { LAB_RUNNER_KIND, processStartTime } = await import("../../lib/stack/run-files");
    if (savedStackDir === undefined) delete process.env.LOCKLAB_STACK_DIR;
    else process.env.LOCKLAB_STACK_DIR = savedStackDir;
    expect(PID_DIR).toBe(path.join(dir, "stack", "pids"));
    fs.mkdirSync(PID_DIR, { recursive: true });

    const env = { ...process.env, LOCKLAB_REAPER_TEST: mark };
    const left = spawn("sh", ["-c", "sleep 600 & sleep 600"], { detached: true, stdio: "ignore", env });
    const stranger = spawn("sleep", ["600"], { detached: true, stdio: "ignore", env });
    left.unref();
    stranger.unref();
    expect(await within(2000, () => processStartTime(left.pid!) !== undefined && marked(mark).length === 4)).not.toBeNull();
    const write = (name: string, rec: object) => fs.writeFileSync(path.join(PID_DIR, `${name}.json`), JSON.stringify(rec));
    write("lab-run-7", { pid: left.pid, kind: LAB_RUNNER_KIND, supervisor: 1, startTime: processStartTime(left.pid!) });
    // A pidfile whose process is gone and whose pid now names someone else (another start time).
    write("lab-run-8", { pid: stranger.pid, kind: LAB_RUNNER_KIND, supervisor: 1, startTime: processStartTime(stranger.pid!)! - 100 });

    await cleanStale([]);
    expect(await within(5000, () => marked(mark).length === 1)).not.toBeNull();
    expect(alive(stranger.pid!)).toBe(true);
    expect(alive(left.pid!)).toBe(false);
    expect(fs.readdirSync(PID_DIR)).toEqual([]);
  }, TEST_TIMEOUT_MS);
});
