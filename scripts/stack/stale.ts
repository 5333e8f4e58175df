// What a previous run left behind, and who may use each port. The decisions are pure functions of
// what was observed, so they can be tested without processes; cleanStale does the observing and
// the stopping.

import fs from "node:fs";
import path from "node:path";
import { LAB_RUNNER_KIND, processStartTime } from "../../lib/stack/run-files";
import { say, since } from "./log";
import { PID_DIR, ROOT } from "./paths";
import { type PidRecord, cmdlineOf, environOf, isAlive, signal, waitFor } from "./processes";

/** What /proc says about the pid a pidfile names. A dead process has no command line. */
export interface ProcessFacts {
  readonly alive: boolean;
  readonly cmdline: string;
  readonly environ: readonly string[];
  /** When it started (/proc), where known: a pidfile's startTime that differs names another process. */
  readonly startTime?: number;
}

/** How to recognise a leftover process of one pidfile `kind`, and how to stop it. */
export interface StaleRule {
  readonly kind: string;
  /** The pid has not been reused by some other program since the pidfile was written. */
  isOurs(rec: PidRecord, proc: ProcessFacts): boolean;
  stop(rec: PidRecord): Promise<void>;
}

export type StaleAction = "stop" | "forget";

/**
 * A pidfile whose process is gone, is this very process, has no rule, or now names an unrelated
 * program (pids are reused) is forgotten; only a process that is recognisably ours is stopped.
 */
export function staleAction(
  rec: PidRecord,
  proc: ProcessFacts,
  rule: StaleRule | undefined,
  selfPid: number,
): StaleAction {
  if (rec.pid === selfPid || !proc.alive) return "forget";
  if (rec.startTime !== undefined && proc.startTime !== undefined && rec.startTime !== proc.startTime) return "forget";
  return rule?.isOurs(rec, proc) ? "stop" : "forget";
}

/** The previous supervisor first: if it is still alive it stops its own children in order. */
export function supervisorFirst<T extends { readonly kind?: unknown }>(records: readonly T[]): T[] {
  return [...records].sort((a, b) => (a.kind === "supervisor" ? -1 : b.kind === "supervisor" ? 1 : 0));
}

/** The default way to stop a leftover child: its whole group, politely, then SIGKILL. */
export async function stopStaleGroup(rec: PidRecord): Promise<void> {
  signal(rec.pid, "SIGCONT");
  signal(rec.pid, "SIGTERM");
  if (!(await waitFor(() => !isAlive(rec.pid), 5000))) signal(rec.pid, "SIGKILL");
}

export const SUPERVISOR_RULE: StaleRule = {
  kind: "supervisor",
  isOurs: (_rec, proc) => proc.cmdline.includes(ROOT),
  async stop(rec) {
    signal(rec.pid, "SIGTERM", false);
    if (!(await waitFor(() => !isAlive(rec.pid), 30_000))) signal(rec.pid, "SIGKILL", false);
  },
};

/**
 * A lab run's scenario runner, which an app instance starts in a process group of its own and
 * registers (lib/stack/run-files.ts): the runner's stop, its reaper and the next start stop it.
 * Recognised by the start time its pidfile recorded; without /proc, by its command line.
 */
export const LAB_RUNNER_RULE: StaleRule = {
  kind: LAB_RUNNER_KIND,
  isOurs: (rec, proc) =>
    rec.startTime !== undefined && proc.startTime !== undefined
      ? rec.startTime === proc.startTime
      : proc.cmdline.includes("lab-scenario-runner"),
  stop: stopStaleGroup,
};

type StaleFile = PidRecord & { readonly file: string };

function readPidFiles(): StaleFile[] {
  const records: StaleFile[] = [];
  for (const file of fs.readdirSync(PID_DIR)) {
    if (!file.endsWith(".json")) continue;
    try {
      records.push({ file, ...JSON.parse(fs.readFileSync(path.join(PID_DIR, file), "utf8")) });
    } catch {
      fs.rmSync(path.join(PID_DIR, file), { force: true });
    }
  }
  return records;
}

function observe(pid: number): ProcessFacts {
  if (!isAlive(pid)) return { alive: false, cmdline: "", environ: [] };
  return { alive: true, cmdline: cmdlineOf(pid), environ: environOf(pid), startTime: processStartTime(pid) };
}

/** Stops whatever a previous run (including one killed with SIGKILL) left running. */
export async function cleanStale(rules: readonly StaleRule[]): Promise<void> {
  if (!fs.existsSync(PID_DIR)) return;
  for (const rec of supervisorFirst(readPidFiles())) {
    const { pid, file } = rec;
    const rule = [SUPERVISOR_RULE, LAB_RUNNER_RULE, ...rules].find((r) => r.kind === rec.kind);
    if (staleAction(rec, observe(pid), rule, process.pid) === "forget" || !rule) {
      fs.rmSync(path.join(PID_DIR, file), { force: true });
      continue;
    }
    const t0 = Date.now();
    await rule.stop(rec);
    await waitFor(() => !isAlive(pid), 5000);
    say(`✓ stopped stale ${file.replace(/\.json$/, "")} from a previous run (pid ${pid}, ${since(t0)})`);
    fs.rmSync(path.join(PID_DIR, file), { force: true });
  }
}

/**
 * Stops the processes of one kind that this runner's pidfiles name (a clean stop's lab runners),
 * and forgets their pidfiles.
 */
export async function stopRecorded(rule: StaleRule): Promise<void> {
  if (!fs.existsSync(PID_DIR)) return;
  for (const rec of readPidFiles()) {
    if (rec.kind !== rule.kind) continue;
    if (staleAction(rec, observe(rec.pid), rule, process.pid) === "stop") {
      await rule.stop(rec);
      await waitFor(() => !isAlive(rec.pid), 5000);
      say(`✓ stopped ${rec.file.replace(/\.json$/, "")} (pid ${rec.pid})`);
    }
    fs.rmSync(path.join(PID_DIR, rec.file), { force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// port claims

/** What was observed at a service's address before the stack starts anything. */
export interface PortFacts {
  /** Something accepts TCP connections there. */
  readonly answers: boolean;
  /** The stack could start a server at this address (a loopback host). */
  readonly local: boolean;
  /** The address was set by the user rather than left at the default. */
  readonly explicit: boolean;
  /** What answers speaks the service's protocol (a Redis PONG). Unchecked counts as yes. */
  readonly speaks?: boolean;
  /** What answers is a server this stack started in an earlier run whose pidfile is gone. */
  readonly leftover?: boolean;
}

export type PortClaim =
  /** free: the stack starts its own server there */
  | "start"
  /** the user pointed us at a server that is already running: used as is, not managed */
  | "use-existing"
  /** ours from an earlier run: stop it, then start a fresh one */
  | "stop-leftover"
  /** another program holds the port: refuse, naming the variable to change */
  | "foreign"
  /** nothing answers and the stack cannot start a server on another host */
  | "unreachable";

/** Who gets the port. A server at a default address is never adopted: it could be anything. */
export function decidePortClaim(facts: PortFacts): PortClaim {
  if (!facts.answers) return facts.local ? "start" : "unreachable";
  if (facts.leftover) return "stop-leftover";
  if ((facts.speaks ?? true) && facts.explicit) return "use-existing";
  return "foreign";
}
