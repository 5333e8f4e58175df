import { type ChildProcess, spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { policyText, removeLeftoverPolicy } from "../../scripts/apt-install.mjs";

// The bootstrap's apt step (scripts/apt-install.mjs, through tests/fixtures/apt-step.mjs) run as
// a real process with a fake apt-get first on its PATH and its policy-rc.d at a path of the test's
// own, then failed, interrupted and killed as a person or the machine would. The machine's own
// /usr/sbin/policy-rc.d is never written: the last test checks it is as it was.

const FIXTURE = path.resolve(__dirname, "../fixtures/apt-step.mjs");
const MACHINE_POLICY = "/usr/sbin/policy-rc.d";
const DOCKER_POLICY = "#!/bin/sh\n# the base image's own\nexit 101\n";

/** apt-get as FAKE_APT says: `fail` (exit 100), `hang` (until killed), `slow-ok` (1 s), else ok. */
const FAKE_APT_GET = `#!/bin/sh
echo "$*" >> "$FAKE_DIR/calls"
[ "$1" = update ] && exit 0
cat "$POLICY_RC_D_FOR_TEST" > "$FAKE_DIR/policy-during-install" 2>/dev/null
echo started > "$FAKE_DIR/started"
case "$FAKE_APT" in
  fail) echo "E: Unable to locate package" >&2; exit 100 ;;
  hang) exec sleep 600 ;;
  slow-ok) sleep 1; exit 0 ;;
  *) exit 0 ;;
esac
`;

function fingerprint(file: string): string {
  try {
    const stat = fs.lstatSync(file);
    const body = stat.isFile() ? fs.readFileSync(file) : Buffer.from(stat.isSymbolicLink() ? fs.readlinkSync(file) : "");
    return `${stat.mode}:${stat.uid}:${crypto.createHash("sha256").update(body).digest("hex")}`;
  } catch {
    return "absent";
  }
}

let machineBefore = "";
let dir = "";
let policy = "";
let step: ChildProcess | null = null;

beforeAll(() => {
  machineBefore = fingerprint(MACHINE_POLICY);
});

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "locklab-apt-"));
  fs.mkdirSync(path.join(dir, "bin"));
  fs.writeFileSync(path.join(dir, "bin", "apt-get"), FAKE_APT_GET, { mode: 0o755 });
  policy = path.join(dir, "policy-rc.d");
});

afterEach(() => {
  // Whatever a test left running (a hung fake apt-get), its whole group goes.
  if (step?.pid && step.exitCode === null && step.signalCode === null) {
    try {
      process.kill(-step.pid, "SIGKILL");
    } catch {
      /* gone */
    }
  }
  step = null;
  fs.rmSync(dir, { recursive: true, force: true });
});

afterAll(() => {
  expect(fingerprint(MACHINE_POLICY)).toBe(machineBefore);
});

interface Ended {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Starts the apt step in its own process group (a terminal's foreground job) and returns how it ended. */
function startStep(fakeApt: string): { child: ChildProcess; ended: Promise<Ended> } {
  const child = spawn(process.execPath, [FIXTURE, "redis-server", "nginx"], {
    env: { ...process.env, PATH: `${path.join(dir, "bin")}:${process.env.PATH}`, POLICY_RC_D_FOR_TEST: policy, FAKE_DIR: dir, FAKE_APT: fakeApt },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  step = child;
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk));
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk));
  const ended = new Promise<Ended>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the apt step did not end within 15 s; stderr: ${stderr}`)), 15_000);
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return { child, ended };
}

/** Until the fake apt-get's install has begun (at most 10 s). */
async function installStarted(): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!fs.existsSync(path.join(dir, "started"))) {
    if (Date.now() > deadline) throw new Error("the fake apt-get install never started");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** What the fake apt-get saw at the policy path while it installed. */
const policyDuringInstall = () => fs.readFileSync(path.join(dir, "policy-during-install"), "utf8");

// Each case starts Node and the fake apt-get: more than vitest's 5 s default on a busy machine.
describe("the bootstrap's apt step puts the machine back", { timeout: 30_000 }, () => {
  it("installs with the marked policy-rc.d in place, and removes it afterwards", async () => {
    const { ended } = startStep("ok");
    const end = await ended;
    expect(end).toMatchObject({ code: 0 });
    expect(end.stdout).toContain("installed");
    expect(fs.readFileSync(path.join(dir, "calls"), "utf8")).toBe("update\ninstall -y redis-server nginx\n");
    expect(policyDuringInstall()).toMatch(/^#!\/bin\/sh\n# lock-lab bootstrap pid \d+ start \d+: .*\nexit 101\n$/);
    expect(fs.existsSync(policy)).toBe(false);
  });

  it("apt-get fails: the run exits non-zero (process.exit, as bootstrap's fail) and no policy-rc.d is left", async () => {
    const { ended } = startStep("fail");
    const end = await ended;
    expect(end.code).toBe(1);
    expect(end.stderr).toContain("apt-get install -y redis-server nginx failed (exit 100)");
    expect(policyDuringInstall()).toContain("# lock-lab bootstrap pid");
    expect(fs.existsSync(policy)).toBe(false);
  });

  for (const [sig, how, code] of [["SIGINT", "Ctrl-C", 130], ["SIGTERM", "kill -TERM -<pgid>", 143]] as const) {
    it(`${sig} to the whole job mid-install (${how}): exits ${code}, no policy-rc.d left`, async () => {
      const { child, ended } = startStep("hang");
      await installStarted();
      expect(fs.existsSync(policy)).toBe(true);
      process.kill(-child.pid!, sig);
      const end = await ended;
      expect(end.code).toBe(code);
      expect(fs.existsSync(policy)).toBe(false);
    });
  }

  it("SIGTERM to the bootstrap alone lets apt-get finish, then removes the file and exits 143", async () => {
    const { child, ended } = startStep("slow-ok");
    await installStarted();
    process.kill(child.pid!, "SIGTERM");
    const end = await ended;
    expect(end.code).toBe(143);
    expect(end.stdout).not.toContain("installed"); // it did not go on as if nothing happened
    expect(fs.existsSync(policy)).toBe(false);
  });

  it("killed with SIGKILL mid-install: the file stays, the next start leaves it while that run lives and removes it after", async () => {
    const { child, ended } = startStep("hang");
    await installStarted();
    // Another start while this one installs: not a leftover.
    expect(removeLeftoverPolicy(policy)).toBe("in-use");
    expect(fs.existsSync(policy)).toBe(true);
    process.kill(-child.pid!, "SIGKILL");
    await ended;
    expect(fs.existsSync(policy)).toBe(true); // nothing runs on SIGKILL
    expect(removeLeftoverPolicy(policy)).toBe("removed");
    expect(fs.existsSync(policy)).toBe(false);
  });

  it("an older bootstrap's leftover (no run named in it) is removed at the next start", () => {
    fs.writeFileSync(policy, "#!/bin/sh\n# written by lock-lab bootstrap during apt-get install\nexit 101\n", { mode: 0o755 });
    expect(removeLeftoverPolicy(policy)).toBe("removed");
    expect(fs.existsSync(policy)).toBe(false);
    expect(removeLeftoverPolicy(policy)).toBe("none");
  });

  it("someone else's policy-rc.d is never written over or removed, nor a file of ours that was changed", async () => {
    fs.writeFileSync(policy, DOCKER_POLICY, { mode: 0o755 });
    const { ended } = startStep("fail");
    expect((await ended).code).toBe(1);
    expect(fs.readFileSync(policy, "utf8")).toBe(DOCKER_POLICY);
    expect(removeLeftoverPolicy(policy)).toBe("foreign");
    expect(fs.readFileSync(policy, "utf8")).toBe(DOCKER_POLICY);

    // Ours, of a dead run, with a line added by someone since: theirs now.
    fs.writeFileSync(policy, `${policyText(999_999_999, "1")}# kept on purpose\n`);
    expect(removeLeftoverPolicy(policy)).toBe("foreign");
    expect(fs.existsSync(policy)).toBe(true);
  });

  it("a symlink at the policy path is never followed", () => {
    const target = path.join(dir, "target");
    fs.writeFileSync(target, policyText(999_999_999, "1"));
    fs.symlinkSync(target, policy);
    expect(removeLeftoverPolicy(policy)).toBe("foreign");
    expect(fs.lstatSync(policy).isSymbolicLink()).toBe(true);
    expect(fs.existsSync(target)).toBe(true);
  });
});
