/**
 * One load run from a terminal, recorded like the dashboard's:
 *   npm run load -- --strategy redlock --vus 300 --duration 20s
 *   npm run load -- --strategy none --requests 2000 --stock 100 --work 5
 *
 * Signs in to the admin API, creates the run (which resets the sale under the chosen strategy and
 * knobs), drives it with k6 when k6 is on PATH and with the built-in Node driver otherwise, then
 * prints what the run did to the stock. A FAIL verdict is the lesson, not a failure of this
 * command: it exits 0 whenever the run completed, non-zero only when the run could not be done.
 */
import type { RunRecord } from "../lib/runs/runs";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { STRATEGY_NAMES } from "../lib/locks/strategies";
import { drive, k6OnPath, printRun } from "./load-tools";

const ROOT = path.resolve(__dirname, "..");
const PASSWORD_FILE = path.join(ROOT, ".stack", "admin-password");
/** Every strategy the registry knows, the lab's variants included: one list, in lib/locks/strategies. */
const STRATEGIES = STRATEGY_NAMES;
const API_TIMEOUT_MS = 15_000;

const USAGE = `usage: npm run load -- [--strategy ${STRATEGIES.join("|")}] [--vus 50]
                     [--duration 20s | --requests 2000] [--stock 100] [--work ms] [--ttl ms] [--wait ms]
                     [--tool k6|node] [--scenario name] [--url http://127.0.0.1:3000]
  ADMIN_PASSWORD comes from the environment, or from .stack/admin-password (written by npm run stack).`;

class UsageError extends Error {
  override name = "UsageError";
}

interface Options {
  url: string;
  strategy?: (typeof STRATEGIES)[number];
  vus?: number;
  durationMs?: number;
  totalRequests?: number;
  initialStock?: number;
  workMs?: number;
  lockTtlMs?: number;
  waitTimeoutMs?: number;
  tool?: "k6" | "node";
  scenario?: string;
}

/** "20s", "1500ms", "2m" or a bare number of seconds → milliseconds. */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text.trim());
  if (!match) throw new UsageError(`--duration must look like 20s, 1500ms or 2m, got "${text}"`);
  const value = Number(match[1]);
  const unit = match[2] ?? "s";
  return Math.round(unit === "ms" ? value : unit === "s" ? value * 1000 : value * 60_000);
}

function parseOptions(argv: string[]): Options | undefined {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      strategy: { type: "string" },
      vus: { type: "string" },
      duration: { type: "string" },
      requests: { type: "string" },
      stock: { type: "string" },
      work: { type: "string" },
      ttl: { type: "string" },
      wait: { type: "string" },
      tool: { type: "string" },
      scenario: { type: "string" },
      url: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) return undefined;
  const int = (flag: string, text: string | undefined, min = 0) => {
    if (text === undefined) return undefined;
    const value = Number(text);
    if (!Number.isInteger(value) || value < min) throw new UsageError(`--${flag} must be an integer ≥ ${min}, got "${text}"`);
    return value;
  };
  const strategy = values.strategy ?? positionals[0];
  if (strategy !== undefined && !STRATEGIES.includes(strategy as Options["strategy"] & string)) {
    throw new UsageError(`--strategy must be one of ${STRATEGIES.join(", ")}, got "${strategy}"`);
  }
  if (values.duration !== undefined && values.requests !== undefined) {
    throw new UsageError("give either --duration or --requests, not both");
  }
  if (values.tool !== undefined && values.tool !== "k6" && values.tool !== "node") {
    throw new UsageError(`--tool must be k6 or node, got "${values.tool}"`);
  }
  return {
    url: (values.url ?? process.env.BASE_URL ?? "http://127.0.0.1:3000").replace(/\/+$/, ""),
    strategy: strategy as Options["strategy"],
    vus: int("vus", values.vus, 1),
    durationMs: values.duration === undefined ? undefined : parseDuration(values.duration),
    totalRequests: int("requests", values.requests, 1),
    initialStock: int("stock", values.stock),
    workMs: int("work", values.work),
    lockTtlMs: int("ttl", values.ttl, 1),
    waitTimeoutMs: int("wait", values.wait),
    tool: values.tool as Options["tool"],
    scenario: values.scenario,
  };
}

/** The same rule as load/driver.mjs: this machine only, unless LOAD_ALLOWED_HOSTS names the host. */
function assertLoadTarget(url: string): void {
  const { hostname } = new URL(url);
  const allowed = ["127.0.0.1", "localhost", "[::1]", ...(process.env.LOAD_ALLOWED_HOSTS ?? "").split(",").map((h) => h.trim())];
  if (!allowed.includes(hostname)) {
    throw new UsageError(`load goes to 127.0.0.1 only; refusing ${hostname} (list it in LOAD_ALLOWED_HOSTS to allow it)`);
  }
}

function adminPassword(): string {
  const fromEnv = process.env.ADMIN_PASSWORD;
  if (fromEnv) return fromEnv;
  if (existsSync(PASSWORD_FILE)) {
    const fromFile = readFileSync(PASSWORD_FILE, "utf8").trim();
    if (fromFile) return fromFile;
  }
  throw new UsageError(
    `no admin password: set ADMIN_PASSWORD, or start the stack with npm run stack (it writes ${path.relative(process.cwd(), PASSWORD_FILE)})`,
  );
}

/** A call to the store's admin API; a refusal becomes an Error carrying the API's own message. */
async function api<T>(base: string, route: string, init: { method?: string; body?: unknown; cookie?: string }): Promise<{ body: T; response: Response }> {
  let response: Response;
  try {
    response = await fetch(`${base}${route}`, {
      method: init.method ?? "GET",
      headers: {
        ...(init.body !== undefined && { "content-type": "application/json" }),
        ...(init.cookie && { cookie: init.cookie }),
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: AbortSignal.timeout(API_TIMEOUT_MS),
    });
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : "";
    throw new Error(`cannot reach ${base}${cause} — is the stack running? (npm run stack)`);
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : {};
  } catch {
    body = { message: text.slice(0, 200) };
  }
  if (!response.ok) {
    const { code, message } = body as { code?: string; message?: string };
    throw new Error(`${init.method ?? "GET"} ${route} answered ${response.status} ${code ?? ""}: ${message ?? text.slice(0, 200)}`.replace(/ +:/, ":"));
  }
  return { body: body as T, response };
}

async function signIn(base: string, password: string): Promise<string> {
  const { response } = await api(base, "/api/admin/session", { method: "POST", body: { password } }).catch((error: Error) => {
    if (/ 401 /.test(error.message)) throw new Error("the admin password was refused: check ADMIN_PASSWORD (or .stack/admin-password)");
    throw error;
  });
  const cookie = response.headers.getSetCookie().find((value) => value.startsWith("locklab_admin="));
  if (!cookie) throw new Error("signed in, but the store set no locklab_admin cookie");
  return cookie.split(";")[0]!;
}

async function main(): Promise<number> {
  let options: Options | undefined;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (!options) {
    console.log(USAGE);
    return 0;
  }
  const base = options.url;
  assertLoadTarget(base);
  const cookie = await signIn(base, adminPassword());

  const hasK6 = k6OnPath();
  let tool: "k6" | "node" = options.tool ?? (hasK6 ? "k6" : "node");
  if (tool === "k6" && !hasK6) throw new UsageError("--tool k6, but k6 is not on PATH");
  if (!options.tool && !hasK6) console.log("k6 not found on PATH; using the built-in Node driver (load/driver.mjs)");

  const create = {
    strategy: options.strategy,
    lockTtlMs: options.lockTtlMs,
    waitTimeoutMs: options.waitTimeoutMs,
    workMs: options.workMs,
    initialStock: options.initialStock,
    tool,
    vus: options.vus,
    durationMs: options.durationMs,
    totalRequests: options.totalRequests,
    scenario: options.scenario,
  };
  const { body: created } = await api<{ run: RunRecord; reportToken: string }>(base, "/api/admin/runs", {
    method: "POST",
    body: create,
    cookie,
  });
  const { run, reportToken } = created;
  tool = run.tool === "k6" ? "k6" : "node";
  const bound = run.durationMs ? `${(run.durationMs / 1000).toFixed(1)} s` : `${run.totalRequests} requests`;
  console.log(`run ${run.id}: ${run.strategy} · stock ${run.initialStock} · ${run.vus} VUs · ${bound} · ${tool} → ${base}/api/buy`);

  // Ctrl-C reaches the load tool too; it stops early and still reports, so wait for it here.
  let interrupted = false;
  const onInterrupt = () => {
    if (!interrupted) console.error("\ninterrupted: stopping the load and recording what it did…");
    interrupted = true;
  };
  process.on("SIGINT", onInterrupt);
  let exitCode: number | null;
  try {
    exitCode = await drive(tool, base, run, reportToken);
  } finally {
    process.off("SIGINT", onInterrupt);
  }

  const { body: finished } = await api<{ run: RunRecord }>(base, `/api/admin/runs/${run.id}`, { cookie });
  printRun(finished.run);
  if (finished.run.status === "completed") {
    // k6 exits 99 when a threshold is crossed: that is a finding, and the run is recorded.
    if (exitCode !== 0) console.log(`(${tool} exited with ${exitCode ?? "a signal"})`);
    return 0;
  }
  console.error(`run ${run.id} was not completed: ${tool} exited with ${exitCode ?? "a signal"}`);
  return 1;
}

main()
  .then((code) => {
    process.exitCode = code;
  })
  .catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = error instanceof UsageError ? 2 : 1;
  });
