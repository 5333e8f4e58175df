/**
 * The load tools scripts/load.ts drives and how it prints what a run did: k6 when it is on PATH,
 * the built-in Node driver (load/driver.mjs) otherwise, each in its own process.
 */
import { spawn, spawnSync } from "node:child_process";
import path from "node:path";
import type { RunRecord } from "../lib/runs/runs";

const ROOT = path.resolve(__dirname, "..");
const DRIVER = path.join(ROOT, "load", "driver.mjs");
const K6_SCRIPT = path.join(ROOT, "load", "flash-sale.js");

export function k6OnPath(): boolean {
  const probe = spawnSync("k6", ["version"], { stdio: "ignore", timeout: 10_000 });
  return !probe.error && probe.status === 0;
}

/** Runs the load tool in its own process, its progress bar straight on this terminal. */
export function drive(tool: "k6" | "node", base: string, run: RunRecord, token: string): Promise<number | null> {
  const bound = run.durationMs ?? undefined;
  const total = run.totalRequests ?? undefined;
  const [command, args] =
    tool === "k6"
      ? [
          "k6",
          [
            "run",
            "-e", `BASE_URL=${base}`,
            "-e", `RUN_ID=${run.id}`,
            // RUN_TOKEN comes from the environment (below), never a command line anyone can read.
            "--include-system-env-vars",
            ...(run.knobs.model === "open" && run.knobs.rate
              ? ["-e", "MODEL=open", "-e", `RATE=${run.knobs.rate}`, "-e", `MAX_VUS=${run.vus}`, "-e", "RAMP=1s"]
              : ["-e", "MODEL=closed"]),
            "-e", `VUS=${run.vus}`,
            ...(bound !== undefined ? ["-e", `DURATION=${bound}ms`] : ["-e", `ITERATIONS=${total ?? 200}`]),
            K6_SCRIPT,
          ],
        ]
      : [
          process.execPath,
          [
            DRIVER,
            "--url", base,
            "--vus", String(run.vus),
            ...(bound !== undefined ? ["--duration-ms", String(bound)] : ["--requests", String(total ?? 200)]),
            "--run", String(run.id),
          ],
        ];
  return new Promise((resolve, reject) => {
    // The run's token by environment: a command line is anyone's to read (ps, /proc/<pid>/cmdline).
    const env = { ...process.env, RUN_TOKEN: token };
    const child = spawn(command, args, { env, stdio: ["ignore", tool === "k6" ? "inherit" : "pipe", "inherit"] });
    // The driver prints its summary JSON on stdout; the table below says the same, better.
    child.stdout?.resume();
    child.once("error", reject);
    child.once("exit", (code, signal) => resolve(signal ? null : code));
  });
}

const num = (value: number | null, digits = 0) => (value === null ? "—" : value.toFixed(digits));
/** Oversell is signed: "+3" sold beyond the stock, "−12" left unsold. */
const signed = (value: number | null) => (value === null ? "—" : value > 0 ? `+${value}` : value < 0 ? `−${-value}` : "0");

export function printRun(run: RunRecord): void {
  const rows: [string, string][] = [
    ["strategy", `${run.strategy}  (ttl ${run.knobs.lockTtlMs} ms, wait ${run.knobs.waitTimeoutMs} ms, work ${run.knobs.workMs} ms)`],
    ["tool", `${run.tool}, ${run.vus} VUs`],
    ["requests", num(run.requests)],
    ["bought", num(run.bought)],
    ["sold out", num(run.soldOut)],
    ["busy", num(run.busy)],
    ["errors", num(run.errors)],
    ["throughput", run.throughput === null ? "—" : `${run.throughput.toFixed(1)} req/s`],
    ["p95", run.p95Ms === null ? "—" : `${run.p95Ms.toFixed(1)} ms`],
    ["orders", `${num(run.orders)} of ${run.initialStock} in stock`],
    ["remaining", num(run.remaining)],
    ["oversell", signed(run.oversell)],
    ["sold twice", num(run.doubleSold)],
    ["lost units", num(run.lostUnits)],
    ["phantom units", num(run.phantomUnits)],
    ["peak holders", num(run.peakHolders)],
    ["verdict", run.verdict ?? "—"],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  console.log(`\nrun ${run.id} · ${run.status}`);
  for (const [label, value] of rows) console.log(`  ${label.padEnd(width)}  ${value}`);
}

