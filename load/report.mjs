/**
 * What the load driver (driver.mjs) reports and to whom: the latency summary, the progress line,
 * the run API calls, and the loopback-only rule for targets. Plain ESM, Node ≥ 20, no dependencies.
 */

/** @typedef {import("./driver.mjs").Counts} Counts */
/** @typedef {import("./driver.mjs").LoadSummary} LoadSummary */

const API_TIMEOUT_MS = 10_000;
/** A completion waits (at most 20 s) for the buyers still in line when the tool stopped: lib/runs/runs.ts. */
const COMPLETE_TIMEOUT_MS = 45_000;
const BAR_WIDTH = 20;

export class CompletionError extends Error {
  /** @param {string} message @param {LoadSummary} summary */
  constructor(message, summary) {
    super(message);
    this.name = "CompletionError";
    this.summary = summary;
  }
}

const LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "[::1]"];

/**
 * Load goes to this machine only, unless LOAD_ALLOWED_HOSTS (comma-separated host names) names
 * the target — e.g. a store on another machine of the lab's network.
 * @param {string} url
 */
export function assertLoadTarget(url) {
  const { hostname, protocol } = new URL(url);
  if (protocol !== "http:" && protocol !== "https:") throw new Error(`--url must be http(s): ${url}`);
  const allowed = (process.env.LOAD_ALLOWED_HOSTS ?? "").split(",").map((host) => host.trim()).filter(Boolean);
  if (![...LOOPBACK_HOSTS, ...allowed].includes(hostname)) {
    throw new Error(`load goes to 127.0.0.1 only; refusing ${hostname} (list it in LOAD_ALLOWED_HOSTS to allow it)`);
  }
}

/** Nearest-rank percentile of an ascending array. */
function percentile(sorted, p) {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

const round2 = (n) => Math.round(n * 100) / 100;

/** @param {Float64Array} latencies @param {number} count */
export function latencySummary(latencies, count) {
  const sorted = Array.from(latencies.subarray(0, count)).sort((a, b) => a - b);
  return {
    p50: round2(percentile(sorted, 50)),
    p95: round2(percentile(sorted, 95)),
    p99: round2(percentile(sorted, 99)),
    max: round2(sorted.length ? sorted[sorted.length - 1] : 0),
  };
}

/** @param {string} baseUrl @param {{ id: number, token: string }} run @param {string} action @param {object} body */
export async function postRun(baseUrl, run, action, body) {
  const response = await fetch(new URL(`/api/admin/runs/${run.id}/${action}`, baseUrl), {
    method: "POST",
    headers: { "content-type": "application/json", "x-run-token": run.token },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(action === "complete" ? COMPLETE_TIMEOUT_MS : API_TIMEOUT_MS),
  });
  if (!response.ok) {
    const text = await response.text().catch(() => "");
    const error = new Error(`${action} for run ${run.id} answered ${response.status}: ${text.slice(0, 300)}`);
    error.status = response.status;
    throw error;
  }
  return response;
}

/** @param {Counts} counts @param {{ total?: number, elapsedMs: number, durationMs?: number }} goal */
export function progressLine(counts, goal) {
  const fraction = goal.total
    ? counts.requests / goal.total
    : goal.durationMs
      ? goal.elapsedMs / goal.durationMs
      : 0;
  const filled = Math.max(0, Math.min(BAR_WIDTH, Math.round(fraction * BAR_WIDTH)));
  const bar = `[${"#".repeat(filled)}${".".repeat(BAR_WIDTH - filled)}]`;
  // Past the duration no new buyer starts; the time since is the purchases still in flight answering.
  const overMs = goal.durationMs ? goal.elapsedMs - goal.durationMs : 0;
  const seconds = (ms) => (ms / 1000).toFixed(1);
  const amount = goal.total
    ? `${counts.requests}/${goal.total} req`
    : overMs > 0
      ? `${seconds(goal.durationMs)}/${seconds(goal.durationMs)} s +${seconds(overMs)} s for the answers in flight  ${counts.requests} req`
      : `${seconds(goal.elapsedMs)}/${seconds(goal.durationMs ?? 0)} s  ${counts.requests} req`;
  return `${bar} ${amount}  bought ${counts.bought}  sold out ${counts.soldOut}  busy ${counts.busy}  errors ${counts.errors}`;
}

