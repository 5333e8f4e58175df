/**
 * The admin API: without a session every route refuses (401 JSON) and changes nothing; with one,
 * malformed config and run requests get field errors; cross-site mutations are refused; and a
 * recorded k6 summary posted to the completion call lands in the run history with the server's
 * own numbers.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db";
import { getRedis } from "@/lib/redis";
import { getConfig, resetConfig } from "@/lib/sale/config";
import { SWITCH_LOCK_KEY } from "@/lib/sale/switch";
import { settledSale } from "../support/accounting";
import { adminFetch, signIn } from "../support/admin";
import { PUBLIC_URL, blast, getSaleStats, instanceUrl, prepareSale } from "../support/stack";
import { sleep, waitFor } from "../support/wait";

const ADMIN_ROUTES: readonly [string, string, unknown?][] = [
  ["GET", "/api/admin/config"],
  ["PUT", "/api/admin/config", { strategy: "none" }],
  ["POST", "/api/admin/config", { strategy: "none" }],
  ["GET", "/api/admin/sale"],
  ["POST", "/api/admin/sale", { initialStock: 1 }],
  ["GET", "/api/admin/runs"],
  ["POST", "/api/admin/runs", { strategy: "none", initialStock: 1, vus: 1, totalRequests: 1, start: true }],
  ["GET", "/api/admin/runs/1"],
  ["GET", "/api/admin/runs/1/export"],
  ["POST", "/api/admin/runs/1/cancel"],
  ["GET", "/api/admin/runs/export"],
  ["POST", "/api/admin/runs/1/progress", { requests: 1, bought: 1, soldOut: 0, busy: 0, errors: 0, elapsedMs: 1 }],
  ["POST", "/api/admin/runs/1/complete", { tool: "node", requests: 1, bought: 1, soldOut: 0, busy: 0, errors: 0, durationMs: 1, latencyMs: { p50: 1, p95: 1, p99: 1 } }],
];

let cookie: string;

beforeAll(async () => {
  await prepareSale({ strategy: "token-lua", workMs: 0 }, 20);
  cookie = await signIn();
});
afterAll(() => resetConfig());

async function snapshot() {
  const [config, sale, runs] = await Promise.all([getConfig(), getSaleStats(), getDb().run.count()]);
  return { config, saleId: sale.id, stock: sale.remaining, orders: sale.orders, runs };
}

describe("without a session", () => {
  it.each(ADMIN_ROUTES)("%s %s → 401 JSON, and nothing changes", async (method, path, body) => {
    const before = await snapshot();
    const response = await adminFetch(null, method, path, body);
    expect(response.status).toBe(401);
    expect(response.json.code).toBe("unauthorized");
    expect(await snapshot()).toEqual(before);
  });

  it("a forged or expired cookie is refused too", async () => {
    const forged = await adminFetch("locklab_admin=v1.99999999999999.bm90LWEtc2lnbmF0dXJl", "GET", "/api/admin/config");
    expect(forged.status).toBe(401);
    const expired = await adminFetch(`locklab_admin=v1.1.${cookie.split(".")[2]}`, "GET", "/api/admin/config");
    expect(expired.status).toBe(401);
  });

  it("/admin pages redirect to sign-in", async () => {
    for (const path of ["/admin", "/admin/runs/1", "/admin/lab"]) {
      const response = await adminFetch(null, "GET", path);
      expect([302, 303, 307, 308]).toContain(response.status);
      expect(response.headers.get("location")).toContain("/admin/login");
    }
  });
});

describe("sign-in", () => {
  it("refuses a wrong password with 401 invalid_password and sets no cookie", async () => {
    const response = await adminFetch(null, "POST", "/api/admin/session", { password: "not-the-password" });
    expect(response.status).toBe(401);
    expect(response.json.code).toBe("invalid_password");
    expect(response.headers.get("set-cookie")).toBeNull();
  });

  it("sets an httpOnly, SameSite=Strict session cookie", async () => {
    const response = await fetch(`${PUBLIC_URL}/api/admin/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ password: process.env.ADMIN_PASSWORD }),
    });
    const setCookie = response.headers.get("set-cookie") ?? "";
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Strict/i);
  });
});

describe("with a session", () => {
  it("refuses a cross-site mutation (403) and changes nothing", async () => {
    const before = await snapshot();
    const response = await adminFetch(cookie, "PUT", "/api/admin/config", { strategy: "none" }, { origin: "http://evil.example" });
    expect(response.status).toBe(403);
    expect(response.json.code).toBe("cross_site_request");
    expect(await snapshot()).toEqual(before);
  });

  it.each([
    [{ strategy: "chubby" }, "strategy"],
    [{ lockTtlMs: 0 }, "lockTtlMs"],
    [{ waitTimeoutMs: "soon" }, "waitTimeoutMs"],
    [{ workMs: -5 }, "workMs"],
    [{ colour: "red" }, "colour"],
  ])("config %j → 422 with a field error on %s", async (body, field) => {
    const before = await snapshot();
    const response = await adminFetch(cookie, "PUT", "/api/admin/config", body);
    expect(response.status).toBe(422);
    expect(response.json.code).toBe("invalid_fields");
    expect(Object.keys(response.json.fieldErrors as object).join(",")).toContain(field);
    expect(await snapshot()).toEqual(before);
  });

  it.each([
    [{ vus: 0 }, "vus"],
    [{ vus: 10_000 }, "vus"],
    [{ initialStock: -1 }, "initialStock"],
    [{ durationMs: 1000, totalRequests: 10 }, "totalRequests"],
    [{ tool: "jmeter" }, "tool"],
    [{ strategy: "mutex" }, "strategy"],
    [{ start: "yes" }, "start"],
  ])("run %j → 422 with a field error on %s", async (body, field) => {
    const before = await snapshot();
    const response = await adminFetch(cookie, "POST", "/api/admin/runs", body);
    expect(response.status).toBe(422);
    expect(Object.keys(response.json.fieldErrors as object)).toContain(field);
    expect(await snapshot()).toEqual(before);
  });

  it("malformed JSON → 400 and nothing changes", async () => {
    const before = await snapshot();
    const response = await adminFetch(cookie, "POST", "/api/admin/runs", "{not json");
    expect(response.status).toBe(400);
    expect(response.json.code).toBe("invalid_json");
    expect(await snapshot()).toEqual(before);
  });

  it("an unknown run is 404, and a malformed id says what an id looks like", async () => {
    const unknown = await adminFetch(cookie, "GET", "/api/admin/runs/99999999");
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ code: "not_found", message: "no run 99999999" });
    const malformed = await adminFetch(cookie, "GET", "/api/admin/runs/abc");
    expect(malformed.status).toBe(404);
    expect(malformed.json.code).toBe("not_found");
    expect(String(malformed.json.message)).toBe('no run "abc": run ids are positive whole numbers');
  });

  it("while a run holds the stack, a switch, a reset, a drop and the lab's reset are refused 409 and change nothing", async () => {
    const created = await adminFetch(cookie, "POST", "/api/admin/runs", { strategy: "token-lua", initialStock: 20, vus: 1, durationMs: 60_000 });
    expect(created.status, created.text).toBe(201);
    const runId = (created.json as { run: { id: number } }).run.id;
    try {
      const before = await snapshot();
      for (const [method, path, body] of [
        ["PUT", "/api/admin/config", { strategy: "none" }],
        ["POST", "/api/admin/sale", { initialStock: 5 }],
        ["POST", "/api/admin/drop", { stock: 5, countdownS: 0 }],
        ["POST", "/api/admin/lab/reset", undefined],
      ] as const) {
        const refused = await adminFetch(cookie, method, path, body);
        expect(refused.status, `${method} ${path}`).toBe(409);
        expect(refused.json).toMatchObject({ code: "run_in_progress", claimKind: "run", claimId: runId });
      }
      // The run's record stays true: its strategy and its sale are what it started with.
      expect(await snapshot()).toEqual(before);
    } finally {
      expect((await adminFetch(cookie, "POST", `/api/admin/runs/${runId}/cancel`)).status).toBe(200);
    }
    expect((await adminFetch(cookie, "PUT", "/api/admin/config", { strategy: "token-lua" })).status).toBe(200);
  });

  it("a switch sent just before a run starts never replaces the run's strategy under it", async () => {
    // Another switch is in progress (its lock held, as a switch holds it while the sale drains), so
    // both the admin's switch and the run's own wait for it; whichever goes first, the run must run
    // what it is stored under. Checked first and switched after, the admin's switch landed after the
    // run's own in about half of the tries, and the run was stored under a strategy it did not run.
    const redis = getRedis();
    for (let attempt = 0; attempt < 6; attempt++) {
      expect(await redis.set(SWITCH_LOCK_KEY, "a-slow-switch", "PX", 5000, "NX")).toBe("OK");
      const switched = adminFetch(cookie, "PUT", "/api/admin/config", { strategy: "none" });
      await sleep(100);
      const started = adminFetch(cookie, "POST", "/api/admin/runs", { strategy: "token-lua", initialStock: 20, vus: 1, durationMs: 60_000 });
      await sleep(300);
      await redis.del(SWITCH_LOCK_KEY);
      const [switch_, run] = await Promise.all([switched, started]);
      const active = (await getConfig()).strategy;
      if (run.status === 201) {
        const runId = (run.json as { run: { id: number } }).run.id;
        expect(active, `run ${runId} stored under token-lua, the switch answered ${switch_.status}`).toBe("token-lua");
        expect((await adminFetch(cookie, "POST", `/api/admin/runs/${runId}/cancel`)).status).toBe(200);
      } else {
        // The switch held the stack while it waited: the run was told so, and started nothing.
        expect(run.status, run.text).toBe(409);
        expect(run.json).toMatchObject({ code: "run_in_progress", claimKind: "change" });
        expect(switch_.status).toBe(200);
        expect(active).toBe("none");
      }
    }
    expect((await adminFetch(cookie, "PUT", "/api/admin/config", { strategy: "token-lua" })).status).toBe(200);
  });

  it("switching the strategy applies to both instances at once", async () => {
    const response = await adminFetch(cookie, "PUT", "/api/admin/config", { strategy: "redlock" });
    expect(response.status).toBe(200);
    // Each instance asked on its own port, so a load balancer that has briefly marked one down
    // (max_fails after an earlier test restarted it) cannot hide an instance that missed the switch.
    const instances = new Set<string>();
    for (const index of [0, 1]) {
      const stock = (await (await fetch(`${instanceUrl(index)}/api/stock`)).json()) as { strategy: string; instance: string };
      expect(stock.strategy).toBe("redlock");
      instances.add(stock.instance);
    }
    expect(instances.size).toBe(2);
    // And what a buyer reaches through nginx says the same.
    for (let i = 0; i < 4; i++) {
      const stock = (await (await fetch(`${PUBLIC_URL}/api/stock`)).json()) as { strategy: string };
      expect(stock.strategy).toBe("redlock");
    }
  });
});

describe("one user of the stack at a time", () => {
  it("a load run in progress refuses a second run and a lab scenario (409); cancelling frees the stack", async () => {
    const created = await adminFetch(cookie, "POST", "/api/admin/runs", { strategy: "token-lua", initialStock: 5, vus: 1, totalRequests: 5 });
    expect(created.status).toBe(201);
    const run = created.json.run as { id: number };

    const second = await adminFetch(cookie, "POST", "/api/admin/runs", { strategy: "none", initialStock: 5 });
    expect(second.status).toBe(409);
    expect(second.json.code).toBe("run_in_progress");
    const lab = await adminFetch(cookie, "POST", "/api/admin/lab/scenarios/1/run");
    expect(lab.status).toBe(409);
    expect(lab.json.code).toBe("lab_run_in_progress");

    const cancelled = await adminFetch(cookie, "POST", `/api/admin/runs/${run.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect((cancelled.json.run as { status: string }).status).toBe("failed");
    const next = await adminFetch(cookie, "POST", "/api/admin/runs", { strategy: "token-lua", initialStock: 5 });
    expect(next.status).toBe(201);
    await adminFetch(cookie, "POST", `/api/admin/runs/${(next.json.run as { id: number }).id}/cancel`);
  });
});

describe("a finished run lets go of the stack", () => {
  it("the moment a run shows as completed, the next run may start (201, not 409)", async () => {
    const created = await adminFetch(cookie, "POST", "/api/admin/runs", {
      strategy: "token-lua", workMs: 0, initialStock: 5, vus: 5, totalRequests: 20, start: true,
    });
    expect(created.status).toBe(201);
    const id = (created.json.run as { id: number }).id;
    // Watched as closely as a script would: the first answer that says "completed" is acted on at once.
    const run = await waitFor(async () => (await adminFetch(cookie, "GET", `/api/admin/runs/${id}`)).json.run as { status: string } | undefined,
      { until: (found) => found !== undefined && found.status !== "running", timeoutMs: 60_000, intervalMs: 10, what: `run ${id} to finish` });
    const next = await adminFetch(cookie, "POST", "/api/admin/runs", { strategy: "token-lua", initialStock: 5 });
    expect(run?.status).toBe("completed");
    expect(next.status, JSON.stringify(next.json)).toBe(201);
    await adminFetch(cookie, "POST", `/api/admin/runs/${(next.json.run as { id: number }).id}/cancel`);
  });
});

describe("a run that ends with buyers still in line", () => {
  it("waits for the buyers in line at its end, counts what they bought, and stores the settled sale's figures", async () => {
    // 200 VUs for 2 s against 20 ms of work per purchase: when the driver's duration ends, most of
    // them are still waiting for the lock (up to 5 s), and the store serves them after that.
    const created = await adminFetch(cookie, "POST", "/api/admin/runs", {
      strategy: "token-lua", workMs: 20, lockTtlMs: 5000, waitTimeoutMs: 5000, initialStock: 10_000, vus: 200, durationMs: 2000, start: true,
    });
    expect(created.status, created.text).toBe(201);
    const id = (created.json.run as { id: number }).id;
    const run = await waitFor(async () => (await adminFetch(cookie, "GET", `/api/admin/runs/${id}`)).json.run as
      { status: string; saleId: number; orders: number; remaining: number; bought: number; verdict: string } | undefined,
    { until: (found) => found !== undefined && found.status !== "running", timeoutMs: 60_000, intervalMs: 250, what: `run ${id} to finish` });
    expect(run?.status).toBe("completed");
    const settled = await settledSale(run!.saleId);
    // The driver stops sending at its deadline and waits for the purchases in flight, as k6 does:
    // every unit the store sold for this run is one the run counted as bought (autocannon's own
    // stop dropped them, and a run of 200 VUs read 1,341 bought against 1,541 orders).
    expect(run!.bought).toBe(settled.orders);
    expect({ orders: run!.orders, remaining: run!.remaining, verdict: run!.verdict })
      .toEqual({ orders: settled.orders, remaining: settled.remaining, verdict: "PASS" });
  });
});

describe("one stack claim for load runs and lab runs", () => {
  it("a lab run in progress refuses a load run (409), and the load run can start once the lab run is done", async () => {
    const lab = await adminFetch(cookie, "POST", "/api/admin/lab/scenarios/12/run");
    expect(lab.status).toBe(202);
    const labRunId = (lab.json.labRun as { id: number }).id;
    const refused = await adminFetch(cookie, "POST", "/api/admin/runs", { strategy: "token-lua", initialStock: 5 });
    expect(refused.status).toBe(409);
    expect(refused.json.code).toBe("run_in_progress");
    expect(String(refused.json.message)).toContain(`lab run ${labRunId}`);

    const { status } = await waitFor(async () => {
      const answer = await adminFetch(cookie, "GET", `/api/admin/lab/runs/${labRunId}`);
      const labRun = answer.json.labRun as { status: string } | undefined;
      if (!labRun) throw new Error(`GET /api/admin/lab/runs/${labRunId} answered ${answer.status} without a lab run`);
      return labRun;
    }, { until: (labRun) => labRun.status !== "running", timeoutMs: 60_000, intervalMs: 250, what: `lab run ${labRunId} to finish` });
    expect(status).toBe("completed");
    const started = await adminFetch(cookie, "POST", "/api/admin/runs", { strategy: "token-lua", initialStock: 5 });
    expect(started.status).toBe(201);
    await adminFetch(cookie, "POST", `/api/admin/runs/${(started.json.run as { id: number }).id}/cancel`);
  });
});

describe("the k6 completion contract", () => {
  it("a recorded k6 summary completes a run; orders and stock come from the server", async () => {
    const created = await adminFetch(cookie, "POST", "/api/admin/runs", {
      strategy: "token-lua", workMs: 0, initialStock: 30, tool: "k6", vus: 20, totalRequests: 60,
    });
    expect(created.status).toBe(201);
    const run = created.json.run as { id: number };
    const token = created.json.reportToken as string;

    // Real purchases happen during the run (as k6 would make them)…
    const load = await blast(PUBLIC_URL, 40);
    expect(load.bought).toBe(30);
    // …and the load tool reports progress with the run's token.
    const progress = await adminFetch(null, "POST", `/api/admin/runs/${run.id}/progress`,
      { requests: 40, bought: 30, soldOut: 10, busy: 0, errors: 0, elapsedMs: 900 }, { "x-run-token": token });
    expect(progress.status).toBe(204);

    const wrongToken = await adminFetch(null, "POST", `/api/admin/runs/${run.id}/complete`, { tool: "k6", k6Summary: {} }, { "x-run-token": "nope" });
    expect(wrongToken.status).toBe(401);

    // The recorded summary claims other figures (400 requests, 50 bought); the server's own count wins.
    const k6Summary = JSON.parse(readFileSync("tests/fixtures/k6-summary.json", "utf8"));
    const completed = await adminFetch(null, "POST", `/api/admin/runs/${run.id}/complete`, { tool: "k6", k6Summary }, { "x-run-token": token });
    expect(completed.status).toBe(200);
    const record = completed.json.run as Record<string, number | string>;
    expect(record.status).toBe("completed");
    expect(record.tool).toBe("k6");
    expect(record.requests).toBe(k6Summary.metrics.purchase_requests.values.count);
    expect(record.p95Ms).toBe(k6Summary.metrics.purchase_duration.values["p(95)"]);
    expect(record.orders).toBe(30);
    expect(record.remaining).toBe(0);
    expect(record.oversell).toBe(0);
    expect(record.verdict).toBe("PASS");

    const again = await adminFetch(null, "POST", `/api/admin/runs/${run.id}/complete`, { tool: "k6", k6Summary }, { "x-run-token": token });
    expect(again.status).toBe(401);

    const csv = await adminFetch(cookie, "GET", "/api/admin/runs/export");
    expect(csv.headers.get("content-type")).toContain("text/csv");
    expect(csv.text.split("\n")[0]).toContain("oversell");
    expect(csv.text).toContain(`\n${run.id},completed,`);
    const exported = await adminFetch(cookie, "GET", `/api/admin/runs/${run.id}/export`);
    expect(exported.json.id).toBe(run.id);
    expect((exported.json.timeline as unknown[]).length).toBeGreaterThanOrEqual(2);
  });
});

describe("open-model runs", () => {
  it("refuses the open model without an arrival rate (422, field rate), and starts nothing", async () => {
    const before = await snapshot();
    const refused = await adminFetch(cookie, "POST", "/api/admin/runs", { strategy: "token-lua", initialStock: 5, model: "open" });
    expect(refused.status).toBe(422);
    expect(refused.json.fieldErrors).toHaveProperty("rate");
    expect(await snapshot()).toEqual(before);
  });

  it("drives buyers arriving at a rate through the built-in driver, and completes with the server's own figures", async () => {
    const created = await adminFetch(cookie, "POST", "/api/admin/runs", {
      strategy: "token-lua", workMs: 0, initialStock: 20, model: "open", rate: 100, vus: 50, totalRequests: 60, start: true,
    });
    expect(created.status).toBe(201);
    const id = (created.json.run as { id: number }).id;
    // A run is "running" until it is "completed" or "failed".
    const run = await waitFor(async () => {
      const answer = await adminFetch(cookie, "GET", `/api/admin/runs/${id}`);
      const found = answer.json.run as Record<string, unknown> | undefined;
      if (!found) throw new Error(`GET /api/admin/runs/${id} answered ${answer.status} without a run`);
      return found;
    }, { until: (found) => found.status !== "running", timeoutMs: 60_000, intervalMs: 250, what: `run ${id} to finish` });
    expect(run).toMatchObject({ status: "completed", requests: 60, orders: 20, knobs: expect.objectContaining({ model: "open", rate: 100 }) });
  });
});
