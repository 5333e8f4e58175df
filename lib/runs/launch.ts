import { spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { getEnv } from "../env";
import { failRun, type RunRecord } from "./runs";

/**
 * Starts the built-in load driver for a run in its own process (never inside the app instance it
 * measures). It drives nginx's public address and reports progress and its summary through the
 * run API with the run's token. If it dies without completing, the run is marked failed.
 */
/** The open model's arrival rate, ramping up over the first second as a sale opening does. */
const openModel = (run: Pick<RunRecord, "knobs">): string[] =>
  run.knobs.model === "open" && run.knobs.rate ? ["--rate", String(run.knobs.rate), "--ramp-ms", "1000"] : [];

/**
 * The driver's command line for a run. The token is one argument with its option (`--token=…`):
 * a base64url token starts with "-" once in 64 runs, and given apart the driver's parser took it
 * for an option and the run failed with no request sent.
 */
export function driverArgs(run: Pick<RunRecord, "id" | "vus" | "durationMs" | "totalRequests" | "knobs">, reportToken: string, url: string): string[] {
  const bound = run.durationMs ? ["--duration-ms", String(run.durationMs)] : ["--requests", String(run.totalRequests ?? 200)];
  return ["--url", url, "--vus", String(run.vus), ...bound, ...openModel(run), "--run", String(run.id), `--token=${reportToken}`, "--quiet"];
}

export function launchDriver(run: RunRecord, reportToken: string): void {
  const script = path.join(process.cwd(), "load", "driver.mjs");
  const log = openSync(path.join(tmpdir(), `lock-lab-run-${run.id}.log`), "a");
  const child = spawn(
    process.execPath,
    [script, ...driverArgs(run, reportToken, getEnv().PUBLIC_URL)],
    // The load driver is no app instance: a cut of this instance's links (its group id's) must not cut its buyers.
    { stdio: ["ignore", log, log], env: { ...process.env, NODE_OPTIONS: "" }, ...(process.getuid?.() === 0 ? { gid: 0 } : {}) },
  );
  // The child has its own copy of the log's descriptor now; this instance's would stay open for good.
  closeSync(log);
  child.on("exit", (code) => {
    if (code !== 0) void failRun(run.id, `load driver exited with code ${code}`).catch(() => {});
  });
  child.on("error", (error) => void failRun(run.id, `load driver could not start: ${error.message}`).catch(() => {}));
}
