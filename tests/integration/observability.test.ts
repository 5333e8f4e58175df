/**
 * What an operator watches: `/api/metrics` (Prometheus text, per instance: purchase outcomes by
 * strategy, lock wait and hold, the sale's units from the durable record), `/api/ready` (503
 * while a server the active strategy needs is down), and one request id per purchase, answered
 * in `x-request-id` and written to the instance's JSON log.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { resetConfig } from "@/lib/sale/config";
import { signIn } from "../support/admin";
import { PUBLIC_URL, instanceUrl, postBuy, prepareSale, stackControl } from "../support/stack";
import { waitFor } from "../support/wait";

let cookie: string;
beforeAll(async () => {
  cookie = await signIn();
});
afterEach(async () => {
  await stackControl("/reset-faults");
});
afterAll(() => resetConfig());

async function metricsOf(baseUrl: string): Promise<string> {
  const response = await fetch(`${baseUrl}/api/metrics`, { headers: { cookie } });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("text/plain");
  return response.text();
}

/** The value of one series, 0 when it has not been written yet. */
function series(text: string, name: string, labels: Record<string, string>): number {
  const line = text.split("\n").find((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
  return line ? Number(line.slice(line.lastIndexOf(" ") + 1)) : 0;
}

describe("GET /api/metrics", () => {
  it("counts each instance's outcomes under the active strategy, with lock times and the sale's units", async () => {
    await prepareSale({ strategy: "token-lua", workMs: 0 }, 3);
    for (const [index, instance] of [[0, "app-1"], [1, "app-2"]] as const) {
      const url = instanceUrl(index);
      const before = await metricsOf(url);
      const labels = { strategy: "token-lua", instance };
      expect((await postBuy(url, `metrics-${instance}`)).status).toBe(201);
      const after = await metricsOf(url);
      expect(series(after, "locklab_purchases_total", { ...labels, outcome: "bought" })).toBe(series(before, "locklab_purchases_total", { ...labels, outcome: "bought" }) + 1);
      expect(series(after, "locklab_lock_wait_seconds_count", labels)).toBe(series(before, "locklab_lock_wait_seconds_count", labels) + 1);
      expect(series(after, "locklab_lock_hold_seconds_count", labels)).toBe(series(before, "locklab_lock_hold_seconds_count", labels) + 1);
    }
    // The third unit goes, then the fourth buyer finds none.
    expect((await postBuy(instanceUrl(0), "metrics-3")).status).toBe(201);
    const soldOutBefore = series(await metricsOf(instanceUrl(0)), "locklab_purchases_total", { outcome: "sold_out", strategy: "token-lua", instance: "app-1" });
    expect((await postBuy(instanceUrl(0), "metrics-4")).status).toBe(409);
    const text = await metricsOf(instanceUrl(0));
    expect(series(text, "locklab_purchases_total", { outcome: "sold_out", strategy: "token-lua", instance: "app-1" })).toBe(soldOutBefore + 1);
    expect(series(text, "locklab_sale_units", { figure: "sold", strategy: "token-lua" })).toBe(3);
    expect(series(text, "locklab_sale_units", { figure: "double_sold" })).toBe(0);
    expect(series(text, "locklab_sale_units", { figure: "lost" })).toBe(0);
  });

  it("refuses a caller without a session (401 JSON)", async () => {
    const response = await fetch(`${PUBLIC_URL}/api/metrics`);
    expect(response.status).toBe(401);
    expect((await response.json()).code).toBeTruthy();
  });
});

describe("GET /api/ready", () => {
  it("is ready with every server up, answers 503 naming Redis node 1 while it is stopped, and is ready again after", async () => {
    await prepareSale({ strategy: "redlock", workMs: 0 }, 3);
    expect((await fetch(`${PUBLIC_URL}/api/ready`)).status).toBe(200);
    await stackControl("/redis/1/stop");
    const down = await fetch(`${PUBLIC_URL}/api/ready`);
    expect(down.status).toBe(503);
    const body = (await down.json()) as { code: string; checks: Record<string, string> };
    expect(body.code).toBe("not_ready");
    expect(body.checks["redis node 1"]).not.toBe("ok");
    expect(body.checks.postgres).toBe("ok");
    await stackControl("/reset-faults");
    const status = await waitFor(async () => (await fetch(`${PUBLIC_URL}/api/ready`, { signal: AbortSignal.timeout(5000) })).status, {
      until: (answered) => answered === 200,
      timeoutMs: 10_000,
      intervalMs: 250,
      what: "/api/ready to answer 200 again once Redis node 1 is back",
    });
    expect(status).toBe(200);
  });
});

describe("request ids", () => {
  it("answers each purchase with the id nginx gave it, and logs the purchase under that id", async () => {
    await prepareSale({ strategy: "token-lua", workMs: 0 }, 3);
    const response = await postBuy(PUBLIC_URL, "traced");
    expect(response.status).toBe(201);
    const id = response.headers.get("x-request-id");
    expect(id).toMatch(/^[\w-]{8,64}$/);
    const instance = response.headers.get("x-instance");
    const log = path.join(process.cwd(), ".stack", "logs", `${instance}.log`);
    // The log line may be written a moment after the answer.
    const line = await waitFor(() => fs.readFileSync(log, "utf8").split("\n").find((l) => l.includes(id!)), {
      timeoutMs: 2000,
      intervalMs: 100,
      what: `a line with ${id} in ${log}`,
    });
    expect(line, `no line with ${id} in ${log}`).toBeTruthy();
    expect(JSON.parse(line!)).toMatchObject({ requestId: id, instance, status: 201, code: "bought", buyer: "traced" });
  });
});
