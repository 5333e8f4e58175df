import { readFileSync } from "node:fs";
import path from "node:path";
import { parse, type AnyNode, type Program } from "acorn";
import { full } from "acorn-walk";
import { describe, expect, it } from "vitest";
import { K6_METRICS, summaryFromK6, type K6SummaryData } from "@/lib/runs/k6-summary";
import { runCompleteSchema } from "@/lib/validations/run";

/**
 * load/flash-sale.js must run on stock k6 from v0.45 through v2, whose older JS runtimes reject
 * newer syntax. Parsing as ES2019 rejects `?.`, `??`, class fields, top-level await and `import()`;
 * object spread/rest (ES2018) parse there but older k6 builds still choke on them, so the walk
 * rejects those too.
 */
const SCRIPT_PATH = path.resolve(__dirname, "../../load/flash-sale.js");
const script = readFileSync(SCRIPT_PATH, "utf8");
const ALLOWED_MODULES = ["k6", "k6/http", "k6/metrics"];

function parseForK6(source: string): Program {
  return parse(source, { ecmaVersion: 2019, sourceType: "module", locations: true });
}

/** Every construct older k6 rejects, as "line: what" strings; empty when the source is fine. */
function k6Incompatibilities(source: string): string[] {
  let program: Program;
  try {
    program = parseForK6(source);
  } catch (error) {
    return [`does not parse as ES2019: ${(error as Error).message}`];
  }
  const problems: string[] = [];
  full(program, (node: AnyNode) => {
    const line = node.loc?.start.line ?? 0;
    if (node.type === "ObjectExpression" && node.properties.some((p) => p.type === "SpreadElement")) {
      problems.push(`${line}: object spread`);
    }
    if (node.type === "ObjectPattern" && node.properties.some((p) => p.type === "RestElement")) {
      problems.push(`${line}: object rest`);
    }
    if (node.type === "ImportExpression") problems.push(`${line}: dynamic import()`);
    if (node.type === "ImportDeclaration" && !ALLOWED_MODULES.includes(String(node.source.value))) {
      problems.push(`${line}: imports ${String(node.source.value)}`);
    }
  });
  return problems;
}

describe("the syntax check itself", () => {
  it.each([
    ["optional chaining", "var a = {}; var b = a?.c;"],
    ["nullish coalescing", "var a = null; var b = a ?? 1;"],
    ["class fields", "class A { x = 1 }"],
    ["top-level await", "await Promise.resolve(1);"],
    ["object spread", "var a = {}; var b = { ...a };"],
    ["object rest", "var { a, ...rest } = {};"],
    ["a remote jslib", 'import { textSummary } from "https://jslib.k6.io/k6-summary/0.0.2/index.js";'],
    ["a Node module", 'import fs from "node:fs";'],
  ])("catches %s", (_name, source) => {
    expect(k6Incompatibilities(source)).not.toEqual([]);
  });

  it("lets ES2019 through", () => {
    expect(k6Incompatibilities('import http from "k6/http"; var a = [1].concat([2]); var f = (x) => `${x}`;')).toEqual([]);
  });
});

describe("load/flash-sale.js", () => {
  const program = parseForK6(script);

  it("uses only syntax and modules stock k6 runs", () => {
    expect(k6Incompatibilities(script)).toEqual([]);
  });

  it("imports only k6 built-in modules", () => {
    const sources = program.body.flatMap((node) => (node.type === "ImportDeclaration" ? [String(node.source.value)] : []));
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) expect(ALLOWED_MODULES).toContain(source);
  });

  it("defines every metric the run API reads, with the right type", () => {
    const metrics = new Map<string, string>();
    full(program, (node: AnyNode) => {
      if (node.type !== "NewExpression" || node.callee.type !== "Identifier") return;
      const first = node.arguments[0];
      if (first?.type === "Literal" && typeof first.value === "string") metrics.set(first.value, node.callee.name);
    });
    const { duration, ...counters } = K6_METRICS;
    for (const name of Object.values(counters)) expect(metrics.get(name), name).toBe("Counter");
    expect(metrics.get(duration)).toBe("Trend");
  });

  it("exports options, handleSummary and a default function", () => {
    const exported = new Set<string>();
    let hasDefault = false;
    for (const node of program.body) {
      if (node.type === "ExportDefaultDeclaration") {
        hasDefault = ["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression"].includes(node.declaration.type);
      }
      if (node.type !== "ExportNamedDeclaration" || !node.declaration) continue;
      const declaration = node.declaration;
      if (declaration.type === "FunctionDeclaration") exported.add(declaration.id.name);
      if (declaration.type === "VariableDeclaration") {
        for (const declarator of declaration.declarations) {
          if (declarator.id.type === "Identifier") exported.add(declarator.id.name);
        }
      }
    }
    expect(exported).toContain("options");
    expect(exported).toContain("handleSummary");
    expect(hasDefault).toBe(true);
  });
});

/**
 * No k6 binary in CI: run the script's own functions against stand-ins for k6's modules, to check
 * how it classifies answers and what it sends to the run API.
 */
interface FakeResponse {
  status: number;
  body: string | null;
  timings: { duration: number };
}
interface LoadedScript {
  options: { summaryTrendStats: string[]; scenarios: Record<string, Record<string, unknown>> };
  handleSummary: (data: unknown) => { stdout: string };
  teardown: () => void;
  iterate: (vu: number, iter: number) => void;
}

function loadScript(env: Record<string, string>, answer: (url: string, body: string) => FakeResponse, answerGet: (url: string) => FakeResponse = () => json(200, {})) {
  const gets: string[] = [];
  const samples = new Map<string, number[]>();
  const posts: { url: string; body: string; params: { headers: Record<string, string> } }[] = [];
  const checks: Record<string, number> = {};
  class FakeMetric {
    constructor(readonly name: string) {}
    add(value: number) {
      samples.set(this.name, [...(samples.get(this.name) ?? []), value]);
    }
  }
  const http = {
    post(url: string, body: string, params: { headers: Record<string, string> }) {
      posts.push({ url, body, params });
      return answer(url, body);
    },
    get(url: string) {
      gets.push(url);
      return answerGet(url);
    },
    setResponseCallback() {},
    expectedStatuses: (...statuses: number[]) => ({ statuses }),
  };
  const check = (value: unknown, sets: Record<string, (v: unknown) => boolean>) => {
    for (const [name, test] of Object.entries(sets)) checks[name] = (checks[name] ?? 0) + (test(value) ? 0 : 1);
  };
  // Module syntax → a function body: drop the imports, un-export the declarations.
  const program = parseForK6(script);
  let body = script;
  for (const node of [...program.body].reverse()) {
    if (node.type === "ImportDeclaration") body = body.slice(0, node.start) + body.slice(node.end);
  }
  body = body
    .replace(/^export default function\s*\(/m, "function __default(")
    .replace(/^export (var|function) /gm, "$1 ");
  const sleeps: number[] = [];
  const sleep = (seconds: number) => void sleeps.push(seconds);
  const factory = new Function(
    "check", "sleep", "http", "Counter", "Trend", "__ENV",
    `var __VU = 0, __ITER = 0;\n${body}\n;return { options: options, handleSummary: handleSummary, teardown: teardown,
      iterate: function (vu, iter) { __VU = vu; __ITER = iter; __default(); } };`,
  );
  const loaded = factory(check, sleep, http, FakeMetric, FakeMetric, env) as LoadedScript;
  const total = (name: string) => (samples.get(name) ?? []).reduce((a, b) => a + b, 0);
  return { loaded, posts, gets, checks, samples, total, sleeps };
}

const json = (status: number, payload: unknown): FakeResponse => ({
  status,
  body: JSON.stringify(payload),
  timings: { duration: 12.5 },
});

describe("flash-sale.js behaviour", () => {
  it("sends a unique buyer per request and classifies every answer by status", () => {
    const answers = [
      json(201, { status: "bought", orderId: 1 }),
      json(409, { code: "sold_out", message: "sold out" }),
      json(423, { code: "busy", message: "busy" }),
      json(503, { code: "unavailable", message: "redis down" }),
      { status: 0, body: null, timings: { duration: 30_000 } },
    ];
    let next = 0;
    const script = loadScript({}, () => answers[next++ % answers.length]!);
    for (let iter = 0; iter < answers.length; iter++) script.loaded.iterate(1, iter);

    expect(script.posts.map((p) => p.url)).toEqual(Array(answers.length).fill("http://127.0.0.1:3000/api/buy"));
    const buyers = script.posts.map((p) => (JSON.parse(p.body) as { buyer: string }).buyer);
    expect(new Set(buyers).size).toBe(answers.length);
    for (const buyer of buyers) expect(buyer).toMatch(/^[A-Za-z0-9._@:-]{1,64}$/);

    expect(script.total(K6_METRICS.requests)).toBe(5);
    expect(script.total(K6_METRICS.bought)).toBe(1);
    expect(script.total(K6_METRICS.soldOut)).toBe(1);
    expect(script.total(K6_METRICS.busy)).toBe(1);
    expect(script.total(K6_METRICS.errors)).toBe(2);
    expect(script.samples.get(K6_METRICS.duration)).toHaveLength(5);
    // Both checks fail exactly for the two errors.
    expect(Object.values(script.checks)).toEqual([2, 2]);
  });

  it("flags a 201 whose body does not say bought", () => {
    const script = loadScript({}, () => json(201, { status: "weird" }));
    script.loaded.iterate(1, 0);
    expect(Object.values(script.checks)).toEqual([0, 1]);
  });

  it("runs a fixed amount shared by the VUs, or the VUs for a duration", () => {
    const byCount = loadScript({ MODEL: "closed", VUS: "300", ITERATIONS: "2000" }, () => json(409, {})).loaded.options;
    expect(byCount.scenarios.spike).toMatchObject({ executor: "shared-iterations", vus: 300, iterations: 2000 });
    const byTime = loadScript({ MODEL: "closed", VUS: "20", DURATION: "5s" }, () => json(409, {})).loaded.options;
    expect(byTime.scenarios.spike).toMatchObject({ executor: "constant-vus", vus: 20, duration: "5s" });
    expect(byTime.summaryTrendStats).toEqual(expect.arrayContaining(["p(50)", "p(95)", "p(99)", "max"]));
  });

  it("is an open model by default: buyers arrive at a rate after a ramp from 0, however slowly the store answers", () => {
    const options = loadScript({ RATE: "500", DURATION: "10s", RAMP: "1s", MAX_VUS: "800" }, () => json(409, {})).loaded.options;
    const spike = options.scenarios.spike as { stages: { target: number; duration: string }[] };
    expect(spike).toMatchObject({ executor: "ramping-arrival-rate", startRate: 0, timeUnit: "1s", maxVUs: 800, preAllocatedVUs: 50 });
    expect(spike.stages).toEqual([{ target: 500, duration: "1s" }, { target: 500, duration: "10s" }]);
    // Valid k6 options: an arrival-rate executor needs VUs to start with and a cap at least as high.
    expect((spike as unknown as { preAllocatedVUs: number }).preAllocatedVUs).toBeLessThanOrEqual(800);
    expect(() => loadScript({ MODEL: "poisson" }, () => json(409, {}))).toThrow("MODEL must be open or closed");
  });

  it("uses only options k6 has from v0.45 through v2 (v2 removed the externally-controlled executor and ext.loadimpact)", () => {
    const executors = ["shared-iterations", "per-vu-iterations", "constant-vus", "ramping-vus", "constant-arrival-rate", "ramping-arrival-rate"];
    const envs: Record<string, string>[] = [{}, { MODEL: "closed" }, { MODEL: "closed", ITERATIONS: "10" }];
    for (const env of envs) {
      const options = loadScript(env, () => json(409, {})).loaded.options as unknown as Record<string, unknown> & { scenarios: Record<string, { executor: string }> };
      expect(Object.keys(options).sort()).toEqual(["noConnectionReuse", "scenarios", "summaryTrendStats", "thresholds"]);
      for (const scenario of Object.values(options.scenarios)) expect(executors).toContain(scenario.executor);
    }
  });

  it("fails the run through its thresholds when the server's accounting finds a unit sold twice or lost", () => {
    const thresholds = (loadScript({}, () => json(409, {})).loaded.options as unknown as { thresholds: Record<string, string[]> }).thresholds;
    expect(thresholds.sale_units_double_sold).toEqual(["count<1"]);
    expect(thresholds.sale_units_lost).toEqual(["count<1"]);
    const script = loadScript({}, () => json(409, {}), () => json(200, { doubleSold: 3, lostUnits: 1 }));
    script.loaded.teardown();
    expect(script.gets).toEqual(["http://127.0.0.1:3000/api/sale"]);
    expect(script.total("sale_units_double_sold")).toBe(3);
    expect(script.total("sale_units_lost")).toBe(1);
  });

  it("fails the run through a threshold of its own when the accounting cannot be read, after asking again", () => {
    const thresholds = (loadScript({}, () => json(409, {})).loaded.options as unknown as { thresholds: Record<string, string[]> }).thresholds;
    expect(thresholds.sale_accounting_unread).toEqual(["count<1"]);
    const refused = loadScript({}, () => json(409, {}), () => json(502, { code: "bad_gateway" }));
    refused.loaded.teardown();
    expect(refused.gets).toHaveLength(5);
    expect(refused.sleeps).toEqual([1, 1, 1, 1]);
    expect(refused.total("sale_accounting_unread")).toBe(1);
    expect(refused.total("sale_units_double_sold")).toBe(0);
    // A read that fails, then answers, counts what it read and nothing else.
    let asked = 0;
    const later = loadScript({}, () => json(409, {}), () => (++asked < 3 ? json(502, {}) : json(200, { doubleSold: 0, lostUnits: 2 })));
    later.loaded.teardown();
    expect(later.total("sale_accounting_unread")).toBe(0);
    expect(later.total("sale_units_lost")).toBe(2);
  });

  const summary = JSON.parse(readFileSync(path.resolve(__dirname, "../fixtures/k6-summary.json"), "utf8")) as unknown;

  it("has a recorded summary the run API accepts and reads consistently", () => {
    const body = runCompleteSchema.parse({ tool: "k6", k6Summary: summary });
    expect(body.tool).toBe("k6");
    const read = summaryFromK6(summary as K6SummaryData);
    expect(read).toMatchObject({ requests: 400, bought: 50, soldOut: 350, busy: 0, errors: 0 });
    expect(read.requests).toBe(read.bought + read.soldOut + read.busy + read.errors);
    expect(read.latencyMs.p50).toBeLessThanOrEqual(read.latencyMs.p95);
    expect(read.latencyMs.p95).toBeLessThanOrEqual(read.latencyMs.p99);
    expect(read.durationMs).toBeGreaterThan(0);
  });

  it("posts its summary to the run it belongs to, with the run token", () => {
    const env = { BASE_URL: "http://127.0.0.1:3000/", RUN_ID: "42", RUN_TOKEN: "secret-token" };
    const script = loadScript(env, () => json(200, { run: { id: 42 } }));
    const { stdout } = script.loaded.handleSummary(summary);
    expect(script.posts).toHaveLength(1);
    const post = script.posts[0]!;
    expect(post.url).toBe("http://127.0.0.1:3000/api/admin/runs/42/complete");
    expect(post.params.headers["x-run-token"]).toBe("secret-token");
    expect(JSON.parse(post.body)).toEqual({ tool: "k6", k6Summary: summary });
    expect(stdout).toContain("bought        50");
    expect(stdout).toContain("run 42 completed");
  });

  it("says so when the run API refuses the summary, and posts nothing without a run", () => {
    const refused = loadScript({ RUN_ID: "42", RUN_TOKEN: "x" }, () => json(401, { code: "bad_token" }));
    expect(refused.loaded.handleSummary(summary).stdout).toContain("run 42 NOT completed: 401");
    const standalone = loadScript({}, () => json(200, {}));
    expect(standalone.loaded.handleSummary(summary).stdout).toContain("sold out      350");
    expect(standalone.posts).toEqual([]);
  });
});
