#!/usr/bin/env node
/**
 * The built-in load driver: the flash-sale spike for machines without k6, built on autocannon.
 * Closed model: `vus` keep-alive connections all hammer `POST /api/buy`; open model (`rate`): buyers
 * arrive at `rate`/s whatever the store answers, at most `vus` in flight (load/engines.mjs). Each request has its own buyer, until
 * `requests` answers (or `durationMs`) are done. Every answer is classified by status — 201 bought,
 * 409 sold out, 423 busy, anything else (and every network error or timeout) an error — and
 * latency percentiles are computed from every single answer (autocannon's histogram has no p95).
 *
 *   [RUN_TOKEN=…] node load/driver.mjs --url http://127.0.0.1:3000 --vus 50 (--requests N | --duration-ms N)
 *                        [--run ID] [--quiet] [--timeout-ms N] [--max-ms N]
 *
 * With --run, it reports progress to the run API every ~500 ms and posts the summary when done,
 * with the run's token from RUN_TOKEN (never an option: a command line is anyone's to read). The
 * app server spawns it that way for the dashboard's Run button, so it is plain ESM that needs
 * nothing but Node ≥ 20 and autocannon.
 */
import { randomBytes } from "node:crypto";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { BAILOUT_ERRORS, closedEngine, openEngine } from "./engines.mjs";
import { CompletionError, assertLoadTarget, latencySummary, postRun, progressLine } from "./report.mjs";

export { CompletionError, latencySummary, progressLine };

/** @typedef {{ requests: number, bought: number, soldOut: number, busy: number, errors: number }} Counts */
/**
 * What the completion call takes for the node tool (lib/validations/run.ts), exactly.
 * @typedef {Counts & { tool: "node", durationMs: number, latencyMs: { p50: number, p95: number, p99: number, max: number } }} LoadSummary
 */
/**
 * @typedef {object} LoadOptions
 * @property {string} url Base URL of the store (nginx); only loopback addresses are accepted.
 * @property {number} [vus] Concurrent connections (closed model), or the most purchases in flight (open model). @default 50
 * @property {number} [rate] Open model: buyers arriving per second, whatever the store answers. Absent: closed model.
 * @property {number} [rampMs] Open model: the arrival rate climbs from 0 to `rate` over this long. @default 0
 * @property {number} [requests] Stop after this many answers (errors included). @default 200 when no durationMs
 * @property {number} [durationMs] Stop after this long instead.
 * @property {{ id: number, token: string }} [run] Report progress to and complete this run.
 * @property {boolean} [quiet] No progress bar on stderr. @default false
 * @property {number} [requestTimeoutMs] A request without an answer by then is an error. @default 30000
 * @property {number} [maxMs] Hard safety stop, whatever happens. @default durationMs + 30 s, or 5 min
 * @property {number} [progressIntervalMs] @default 500
 * @property {string} [buyerPrefix] @default "node-<run id or random>"
 * @property {(counts: Counts & { elapsedMs: number }) => void} [onProgress]
 * @property {NodeJS.WritableStream} [progressStream] @default process.stderr
 * @property {AbortSignal} [signal] Stop early (Ctrl-C) and still summarise — and complete the run.
 */

/** How long a run's progress is reported every EARLY_INTERVAL_MS before the usual interval. */
const EARLY_MS = 2000;
const EARLY_INTERVAL_MS = 100;

export const DEFAULT_LOAD_OPTIONS = Object.freeze({
  vus: 50,
  requests: 200,
  requestTimeoutMs: 30_000,
  progressIntervalMs: 500,
  quiet: false,
});

/**
 * Runs the spike and resolves with the summary. With `run`, also reports progress and completes
 * the run; a failed completion rejects with a CompletionError that carries the summary.
 * @param {LoadOptions} input
 * @returns {Promise<LoadSummary>}
 */
export async function runLoad(input) {
  const given = Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
  const options = { ...DEFAULT_LOAD_OPTIONS, ...given };
  assertLoadTarget(options.url);
  const vus = Math.trunc(options.vus);
  if (!(vus >= 1)) throw new Error("vus must be at least 1");
  const durationMs = options.durationMs === undefined ? undefined : Math.trunc(options.durationMs);
  if (durationMs !== undefined && !(durationMs > 0)) throw new Error("durationMs must be positive");
  const total = durationMs === undefined ? Math.trunc(options.requests) : undefined;
  if (total !== undefined && !(total >= 1)) throw new Error("requests must be at least 1");
  const maxMs = options.maxMs ?? (durationMs !== undefined ? durationMs + 30_000 : 5 * 60_000);
  const run = options.run;
  const buyerPrefix = options.buyerPrefix ?? `node-${run ? `r${run.id}` : randomBytes(4).toString("hex")}`;
  const progressStream = options.progressStream ?? process.stderr;
  const tty = Boolean(progressStream.isTTY);

  const counts = { requests: 0, bought: 0, soldOut: 0, busy: 0, errors: 0 };
  // Preallocated so a long run does not churn the heap; grows by doubling when needed.
  let latencies = new Float64Array(total ?? 16_384);
  let answered = 0;
  let buyerSeq = 0;
  let connectionErrors = 0;
  /** Open model: arrivals that found `vus` purchases already in flight, and were not sent. */
  let dropped = 0;

  const count = (kind) => {
    counts[kind] += 1;
    counts.requests += 1;
  };
  const recordLatency = (ms) => {
    if (answered === latencies.length) {
      const grown = new Float64Array(latencies.length * 2);
      grown.set(latencies);
      latencies = grown;
    }
    latencies[answered++] = ms;
  };

  const started = performance.now();
  const elapsed = () => performance.now() - started;

  const engineOptions = { url: options.url, vus, total, durationMs, requestTimeoutMs: options.requestTimeoutMs, nextBuyer: () => `${buyerPrefix}-${buyerSeq++}` };
  const hooks = {
    onAnswer(statusCode, ms) {
      recordLatency(ms);
      if (statusCode === 201) count("bought");
      else if (statusCode === 409) count("soldOut");
      else if (statusCode === 423) count("busy");
      else count("errors");
    },
    onError() {
      connectionErrors += 1;
      count("errors");
    },
    onDropped() {
      dropped += 1;
    },
  };
  const rate = options.rate === undefined ? undefined : Math.trunc(options.rate);
  const instance = rate === undefined ? closedEngine(engineOptions, hooks) : openEngine({ ...engineOptions, rate, rampMs: options.rampMs }, hooks);
  const finished = instance.finished;

  let stopReason;
  const stop = (reason) => {
    if (stopReason) return;
    stopReason = reason;
    instance.stop();
  };

  // Progress: the bar on stderr, and (with a run) the run API — one report in flight at most.
  let reporting = false;
  let lastLineAt = 0;
  const tick = () => {
    const elapsedMs = elapsed();
    const snapshot = { ...counts, elapsedMs: Math.round(elapsedMs) };
    options.onProgress?.(snapshot);
    if (!options.quiet && (tty || elapsedMs - lastLineAt >= 1000)) {
      lastLineAt = elapsedMs;
      const line = progressLine(counts, { total, durationMs, elapsedMs });
      progressStream.write(tty ? `\r\x1b[2K${line}` : `${line}\n`);
    }
    if (run && !reporting) {
      reporting = true;
      postRun(options.url, run, "progress", snapshot)
        .catch((error) => {
          // The run was failed or finished elsewhere (abandoned, cancelled): no point going on.
          if ([401, 403, 404, 409].includes(error.status)) stop(`the run API refused progress (${error.status})`);
        })
        .finally(() => {
          reporting = false;
        });
    }
  };
  // The first seconds are sampled finely (one report in flight at most, as always): a run shorter
  // than one interval still draws its stock falling on the run's page, not one point at the end.
  let progressTimer = setInterval(tick, Math.min(EARLY_INTERVAL_MS, options.progressIntervalMs));
  const settleTimer = setTimeout(() => {
    clearInterval(progressTimer);
    progressTimer = setInterval(tick, options.progressIntervalMs);
  }, EARLY_MS);

  const safetyTimer = setTimeout(() => stop(`safety timeout after ${maxMs} ms`), maxMs);
  const onAbort = () => stop("interrupted");
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    // If autocannon itself hangs after a stop, give up on it rather than on the run.
    let lastResort;
    await Promise.race([
      finished,
      new Promise((resolve) => {
        lastResort = setTimeout(resolve, maxMs + 10_000);
      }),
    ]).finally(() => clearTimeout(lastResort));
  } finally {
    clearTimeout(safetyTimer);
    clearTimeout(settleTimer);
    clearInterval(progressTimer);
    options.signal?.removeEventListener("abort", onAbort);
  }
  if (connectionErrors >= BAILOUT_ERRORS && !stopReason) stopReason = `${connectionErrors} connection errors or timeouts`;

  const durationMsDone = Math.max(1, Math.round(elapsed()));
  if (!options.quiet) {
    const line = progressLine(counts, { total, durationMs, elapsedMs: durationMsDone });
    progressStream.write(tty ? `\r\x1b[2K${line}\n` : `${line}\n`);
    if (stopReason) progressStream.write(`stopped early: ${stopReason}\n`);
    if (dropped) progressStream.write(`open model: ${dropped} arrivals dropped (${vus} purchases already in flight)\n`);
  }

  /** @type {LoadSummary} */
  const summary = {
    tool: "node",
    requests: counts.requests,
    bought: counts.bought,
    soldOut: counts.soldOut,
    busy: counts.busy,
    errors: counts.errors,
    durationMs: durationMsDone,
    latencyMs: latencySummary(latencies, answered),
  };
  if (run) {
    try {
      await postRun(options.url, run, "complete", summary);
    } catch (error) {
      throw new CompletionError(`could not complete run ${run.id}: ${error.message}`, summary);
    }
  }
  return summary;
}

const USAGE = `usage: [RUN_TOKEN=…] node load/driver.mjs --url http://127.0.0.1:3000 --vus 50 (--requests N | --duration-ms N)
                          [--rate N [--ramp-ms N]] [--run ID] [--quiet] [--timeout-ms N] [--max-ms N]`;

/**
 * @param {string[]} argv
 * @param {Record<string, string | undefined>} [env] where --run's token is (RUN_TOKEN)
 */
export function parseCliArgs(argv, env = process.env) {
  const { values } = parseArgs({
    args: argv,
    options: {
      url: { type: "string", default: "http://127.0.0.1:3000" },
      vus: { type: "string", default: String(DEFAULT_LOAD_OPTIONS.vus) },
      requests: { type: "string" },
      "duration-ms": { type: "string" },
      run: { type: "string" },
      quiet: { type: "boolean", default: false },
      "timeout-ms": { type: "string" },
      "max-ms": { type: "string" },
      rate: { type: "string" },
      "ramp-ms": { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) return { help: true };
  const int = (name, value) => {
    if (value === undefined) return undefined;
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer, got ${value}`);
    return n;
  };
  if (values.requests !== undefined && values["duration-ms"] !== undefined) {
    throw new Error("give either --requests or --duration-ms, not both");
  }
  if (values.run !== undefined && !env.RUN_TOKEN) throw new Error("--run needs the run's token in RUN_TOKEN (never on the command line)");
  return {
    url: values.url,
    vus: int("vus", values.vus),
    requests: int("requests", values.requests),
    durationMs: int("duration-ms", values["duration-ms"]),
    run: values.run !== undefined ? { id: int("run", values.run), token: env.RUN_TOKEN } : undefined,
    quiet: values.quiet,
    requestTimeoutMs: int("timeout-ms", values["timeout-ms"]),
    maxMs: int("max-ms", values["max-ms"]),
    rate: int("rate", values.rate),
    rampMs: int("ramp-ms", values["ramp-ms"]),
  };
}

async function main() {
  let options;
  try {
    options = parseCliArgs(process.argv.slice(2));
  } catch (error) {
    console.error(`${error.message}\n${USAGE}`);
    return 2;
  }
  if (options.help) {
    console.log(USAGE);
    return 0;
  }
  // Ctrl-C stops the load early but still completes the run with what was measured; a second
  // Ctrl-C kills the driver outright.
  const interrupt = new AbortController();
  process.once("SIGINT", () => interrupt.abort());
  process.once("SIGTERM", () => interrupt.abort());
  try {
    const summary = await runLoad({ ...options, signal: interrupt.signal });
    console.log(JSON.stringify(summary));
    return 0;
  } catch (error) {
    if (error instanceof CompletionError) console.log(JSON.stringify(error.summary));
    console.error(error instanceof Error ? error.message : error);
    return 1;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main().then((code) => {
    process.exitCode = code;
    // Normally the process ends on its own here; this only cuts short a load client that hangs.
    setTimeout(() => process.exit(code), 2_000).unref();
  });
}
