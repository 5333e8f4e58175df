import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { driverArgs } from "@/lib/runs/launch";
import { runCompleteSchema, runProgressSchema } from "@/lib/validations/run";
import { CompletionError, latencySummary, parseCliArgs, progressLine, runLoad } from "../../load/driver.mjs";
import { sleep } from "../support/wait";

/**
 * The built-in driver against a stand-in store on 127.0.0.1: a stock of N, then sold out, with
 * every 7th buyer told "busy" — enough to check it counts every answer and talks to the run API.
 */
interface FakeStore {
  url: string;
  buyers: string[];
  progress: Record<string, number>[];
  completions: unknown[];
  close: () => Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<string> {
  let body = "";
  for await (const chunk of request) body += chunk;
  return body;
}

async function startFakeStore(stock: number, completeStatus = 200, answerDelayMs = 0): Promise<FakeStore> {
  const buyers: string[] = [];
  const progress: Record<string, number>[] = [];
  const completions: unknown[] = [];
  let left = stock;
  const send = (response: ServerResponse, status: number, payload: unknown) => {
    response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(payload));
  };
  const server: Server = createServer(async (request, response) => {
    const body = await readBody(request);
    if (request.url === "/api/buy") {
      const { buyer } = JSON.parse(body) as { buyer: string };
      if (answerDelayMs) await sleep(answerDelayMs); // a slow store
      buyers.push(buyer);
      if (buyers.length % 7 === 0) return send(response, 423, { code: "busy" });
      if (buyers.length % 11 === 0) return send(response, 500, { code: "internal" });
      if (left <= 0) return send(response, 409, { code: "sold_out" });
      left -= 1;
      return send(response, 201, { status: "bought" });
    }
    if (request.headers["x-run-token"] !== "tok") return send(response, 401, { code: "bad_token" });
    if (request.url === "/api/admin/runs/9/progress") {
      progress.push(JSON.parse(body) as Record<string, number>);
      return response.writeHead(204).end();
    }
    if (request.url === "/api/admin/runs/9/complete") {
      completions.push(JSON.parse(body));
      return send(response, completeStatus, { run: { id: 9 } });
    }
    send(response, 404, { code: "not_found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    buyers,
    progress,
    completions,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const discard = () => new Writable({ write: (_chunk, _encoding, done) => done() });

let store: FakeStore | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

describe("runLoad", () => {
  it("sends exactly the requested amount, one buyer each, and classifies every answer", async () => {
    store = await startFakeStore(20);
    const summary = await runLoad({ url: store.url, vus: 8, requests: 120, quiet: true });

    expect(store.buyers).toHaveLength(120);
    expect(new Set(store.buyers).size).toBe(120);
    for (const buyer of store.buyers) expect(buyer).toMatch(/^[A-Za-z0-9._@:-]{1,64}$/);
    // Every 7th busy (17), every 11th that is not also a 7th an error (9), 20 bought, the rest sold out.
    expect(summary).toMatchObject({ tool: "node", requests: 120, bought: 20, busy: 17, errors: 9, soldOut: 74 });
    expect(summary.latencyMs.p50).toBeLessThanOrEqual(summary.latencyMs.p95);
    expect(summary.latencyMs.p95).toBeLessThanOrEqual(summary.latencyMs.p99);
    expect(summary.latencyMs.p99).toBeLessThanOrEqual(summary.latencyMs.max);
    expect(summary.durationMs).toBeGreaterThan(0);
  });

  it("open model: buyers arrive at the rate, spread out, one buyer each, every answer classified", async () => {
    store = await startFakeStore(20);
    // A slot for every arrival: however slowly this (busy, shared) machine answers, none is dropped here
    // (dropping is the next test's subject).
    const summary = await runLoad({ url: store.url, vus: 120, rate: 400, requests: 120, quiet: true });
    expect(store.buyers).toHaveLength(120);
    expect(new Set(store.buyers).size).toBe(120);
    expect(summary).toMatchObject({ requests: 120, bought: 20, busy: 17, errors: 9, soldOut: 74 });
    // 120 arrivals at 400/s cannot all be sent at once: the last one is due after 297 ms.
    expect(summary.durationMs).toBeGreaterThanOrEqual(290);
  });

  it("open model: a slow store does not slow the arrivals; those with every slot busy are dropped", async () => {
    store = await startFakeStore(100, 200, 300);
    const lines: string[] = [];
    const progressStream = new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) });
    const summary = await runLoad({ url: store.url, vus: 5, rate: 100, requests: 50, progressStream });
    // A closed pool of 5 would need 50 / 5 × 300 ms = 3 s; arrivals at 100/s are done in 0.5 s.
    expect(summary.durationMs).toBeLessThan(2_000);
    expect(summary.requests).toBeLessThan(50);
    expect(summary.requests).toBe(store.buyers.length);
    expect(lines.join("")).toMatch(/open model: \d+ arrivals dropped \(5 purchases already in flight\)/);
  });

  it("stops after a duration", async () => {
    store = await startFakeStore(5);
    const started = Date.now();
    const summary = await runLoad({ url: store.url, vus: 4, durationMs: 600, quiet: true });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(summary.requests).toBeGreaterThan(0);
    expect(summary.requests).toBe(summary.bought + summary.soldOut + summary.busy + summary.errors);
  });

  it("a duration run waits for the purchases still in flight at its end, and counts every one the store answered", async () => {
    // 300 ms per answer and a 500 ms run: at the deadline every lane has a purchase on the wire.
    store = await startFakeStore(100, 200, 300);
    const summary = await runLoad({ url: store.url, vus: 6, durationMs: 500, quiet: true });
    expect(store.buyers.length).toBeGreaterThanOrEqual(12);
    expect(summary.requests).toBe(store.buyers.length);
    expect(summary.requests).toBe(summary.bought + summary.soldOut + summary.busy + summary.errors);
    expect(summary.durationMs).toBeGreaterThanOrEqual(590);
  });

  it("reports progress, finely in its first seconds, and completes the run with the node summary", async () => {
    store = await startFakeStore(10);
    const lines: string[] = [];
    const summary = await runLoad({
      url: store.url,
      vus: 5,
      durationMs: 1_300,
      run: { id: 9, token: "tok" },
      progressIntervalMs: 200,
      progressStream: new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    });
    // Every ~100 ms over the first 1.3 s (not every 200 ms): a short run's page draws more than its end.
    expect(store.progress.length).toBeGreaterThanOrEqual(8);
    // Exactly what the run API's own schemas accept.
    for (const report of store.progress) expect(runProgressSchema.safeParse(report).success).toBe(true);
    expect(store.completions).toEqual([summary]);
    expect(runCompleteSchema.parse(summary)).toEqual(summary);
    expect(lines.join("")).toMatch(/\[[#.]{20}\] .*bought \d+ {2}sold out \d+ {2}busy \d+ {2}errors \d+/);
  });

  it("rejects with the summary when the run API refuses the completion", async () => {
    store = await startFakeStore(3, 409);
    const failure = await runLoad({ url: store.url, vus: 2, requests: 10, run: { id: 9, token: "tok" }, progressStream: discard() }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(CompletionError);
    expect((failure as CompletionError).summary.requests).toBe(10);
  });

  it("counts a store that is not there as errors, and stops", async () => {
    store = await startFakeStore(1);
    const url = store.url;
    await store.close();
    store = undefined;
    const summary = await runLoad({ url, vus: 2, requests: 6, quiet: true, maxMs: 5_000 });
    expect(summary.errors).toBeGreaterThanOrEqual(6);
    expect(summary.bought).toBe(0);
  });

  it("refuses to send load anywhere but this machine", async () => {
    await expect(runLoad({ url: "http://example.com", requests: 1 })).rejects.toThrow(/127\.0\.0\.1/);
  });
});

describe("driver helpers", () => {
  it("computes nearest-rank percentiles", () => {
    const latencies = Float64Array.from({ length: 100 }, (_, i) => i + 1);
    expect(latencySummary(latencies, 100)).toEqual({ p50: 50, p95: 95, p99: 99, max: 100 });
    expect(latencySummary(new Float64Array(4), 0)).toEqual({ p50: 0, p95: 0, p99: 0, max: 0 });
  });

  it("draws the progress bar", () => {
    const counts = { requests: 312, bought: 50, soldOut: 240, busy: 0, errors: 22 };
    expect(progressLine(counts, { total: 500, elapsedMs: 1000 })).toBe(
      "[############........] 312/500 req  bought 50  sold out 240  busy 0  errors 22",
    );
  });

  it("never counts a timed run's seconds backwards: past the duration it says what it waits for", () => {
    const counts = { requests: 1381, bought: 1381, soldOut: 0, busy: 0, errors: 0 };
    expect(progressLine(counts, { durationMs: 10_000, elapsedMs: 4_200 })).toBe(
      "[########............] 4.2/10.0 s  1381 req  bought 1381  sold out 0  busy 0  errors 0",
    );
    expect(progressLine(counts, { durationMs: 10_000, elapsedMs: 11_130 })).toBe(
      "[####################] 10.0/10.0 s +1.1 s for the answers in flight  1381 req  bought 1381  sold out 0  busy 0  errors 0",
    );
  });

  it("parses the command line; a run's token comes from RUN_TOKEN, never from an option", () => {
    expect(parseCliArgs(["--vus", "300", "--requests", "2000", "--run", "4", "--quiet"], { RUN_TOKEN: "t" })).toMatchObject({
      url: "http://127.0.0.1:3000",
      vus: 300,
      requests: 2000,
      run: { id: 4, token: "t" },
      quiet: true,
    });
    expect(() => parseCliArgs(["--requests", "5", "--duration-ms", "100"], {})).toThrow(/either/);
    // The dashboard's command line for a run: nothing of the token on it (ps shows it to everyone),
    // and the driver reads a token starting with "-" (base64url: once in 64 runs) from its environment.
    const token = "-Jx1f0T2bq9m8Zr7uHc3dLwPvEa5yKsN";
    const args = driverArgs({ id: 9, vus: 50, durationMs: null, totalRequests: 200, knobs: {} as never }, "http://127.0.0.1:3000");
    expect(args.filter((arg) => /token/i.test(arg))).toEqual([]);
    expect(parseCliArgs(args, { RUN_TOKEN: token })).toMatchObject({ vus: 50, requests: 200, run: { id: 9, token }, quiet: true });
    expect(() => parseCliArgs(["--run", "4"], {})).toThrow(/RUN_TOKEN/);
    expect(() => parseCliArgs(["--run", "4", "--token", "t"], { RUN_TOKEN: "t" })).toThrow(/--token/);
    expect(() => parseCliArgs(["--vus", "0"], {})).toThrow(/positive/);
  });
});
