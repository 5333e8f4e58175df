import type { ChildProcess } from "node:child_process";
import { closeSync } from "node:fs";
import path from "node:path";
import { LAB_RUNNER_KIND, openRunLog, spawnRegistered } from "../stack/run-files";
import { finishLabRun, getLabRun } from "./lab-runs";

/**
 * Starts the scenario runner for a lab run in its own process: a scenario may kill the very app
 * instance that received the click, so it never runs inside one, and outlives it; it is registered
 * with the stack runner, so it never outlives the stack (lib/stack/run-files.ts). Its log is
 * .stack/logs/lab-run-<id>.log.
 */
export function launchLabRun(labRunId: number): void {
  const { fd: log } = openRunLog(`lab-run-${labRunId}.log`);
  let child: ChildProcess;
  try {
    child = spawnRegistered(`lab-run-${labRunId}`, LAB_RUNNER_KIND, process.execPath, ["--import", "tsx", path.join("scripts", "lab-scenario-runner.ts"), String(labRunId)], {
      cwd: process.cwd(),
      stdio: ["ignore", log, log],
      env: { ...process.env, NODE_OPTIONS: "" },
      // The runner is no app instance: a card that cuts this instance's links (its group id's) must not cut the runner's.
      ...(process.getuid?.() === 0 ? { gid: 0 } : {}),
    });
  } finally {
    // The child has its own copy of the log's descriptor now; this instance's would stay open for good.
    closeSync(log);
  }
  child.unref();
  const fail = async (reason: string) => {
    const record = await getLabRun(labRunId);
    if (!record || record.status !== "running") return;
    record.status = "failed";
    record.error = reason;
    record.finishedAt = new Date().toISOString();
    await finishLabRun(record);
  };
  child.on("exit", (code) => {
    if (code !== 0) void fail(`scenario runner exited with code ${code}`).catch(() => {});
  });
  child.on("error", (error) => void fail(`scenario runner could not start: ${error.message}`).catch(() => {}));
}
