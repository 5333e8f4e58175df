import { type ChildProcess, spawn } from "node:child_process";
import { closeSync } from "node:fs";
import path from "node:path";
import { getEnv } from "../env";
import { openRunLog } from "../stack/run-files";
import { failRun, type RunRecord } from "./runs";

/** The open model's arrival rate, ramping up over the first second as a sale opening does. */
const openModel = (run: Pick<RunRecord, "knobs">): string[] =>
  run.knobs.model === "open" && run.knobs.rate ? ["--rate", String(run.knobs.rate), "--ramp-ms", "1000"] : [];

/**
 * The driver's command line for a run. Its report token is not on it: a command line is anyone's
 * to read (ps, /proc/<pid>/cmdline); the token goes in the driver's environment (RUN_TOKEN),
 * which only its owner and root can read.
 */
export function driverArgs(run: Pick<RunRecord, "id" | "vus" | "durationMs" | "totalRequests" | "knobs">, url: string): string[] {
  const bound = run.durationMs ? ["--duration-ms", String(run.durationMs)] : ["--requests", String(run.totalRequests ?? 200)];
  return ["--url", url, "--vus", String(run.vus), ...bound, ...openModel(run), "--run", String(run.id), "--quiet"];
}

/**
 * Spawns the built-in load driver for a run in its own process (never inside the app instance it
 * measures), in this instance's process group: stopping or killing the instance stops it too. It
 * drives `url` (nginx's public address) and reports progress and its summary through the run API
 * with the run's token. Its log is run-<id>.log in the stack's logs (lib/stack/run-files.ts).
 */
export function spawnDriver(run: RunRecord, reportToken: string, url: string): ChildProcess {
  const script = path.join(process.cwd(), "load", "driver.mjs");
  const { fd: log } = openRunLog(`run-${run.id}.log`);
  try {
    return spawn(process.execPath, [script, ...driverArgs(run, url)], {
      stdio: ["ignore", log, log],
      env: { ...process.env, NODE_OPTIONS: "", RUN_TOKEN: reportToken },
      // The load driver is no app instance: a cut of this instance's links (its group id's) must not cut its buyers.
      ...(process.getuid?.() === 0 ? { gid: 0 } : {}),
    });
  } finally {
    // The child has its own copy of the log's descriptor now; this instance's would stay open for good.
    closeSync(log);
  }
}

/** Starts the driver for a run against the store; if it dies without completing, the run is marked failed. */
export function launchDriver(run: RunRecord, reportToken: string): void {
  const child = spawnDriver(run, reportToken, getEnv().PUBLIC_URL);
  child.on("exit", (code) => {
    if (code !== 0) void failRun(run.id, `load driver exited with code ${code}`).catch(() => {});
  });
  child.on("error", (error) => void failRun(run.id, `load driver could not start: ${error.message}`).catch(() => {}));
}
