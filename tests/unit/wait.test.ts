/** The tests' one wait-for-condition helper (tests/support/wait.ts). */
import { describe, expect, it } from "vitest";
import { sleep, waitFor } from "../support/wait";

describe("waitFor", () => {
  it("resolves with the first answer that satisfies `until`, asking again until then", async () => {
    let probes = 0;
    const value = await waitFor(() => ++probes, { until: (n) => n >= 3, timeoutMs: 1000, intervalMs: 1, what: "a third probe" });
    expect(value).toBe(3);
    expect(probes).toBe(3);
  });

  it("waits for a truthy answer by default, and asks at once the first time", async () => {
    let probes = 0;
    expect(await waitFor(() => (++probes, "ready"), { timeoutMs: 1000, what: "anything" })).toBe("ready");
    expect(probes).toBe(1);
    let answer: string | undefined;
    setTimeout(() => (answer = "later"), 20);
    expect(await waitFor(() => answer, { timeoutMs: 1000, intervalMs: 5, what: "a later answer" })).toBe("later");
  });

  it("treats a probe that throws as not yet", async () => {
    let probes = 0;
    const value = await waitFor(async () => {
      if (++probes < 3) throw new Error("not up yet");
      return "up";
    }, { timeoutMs: 1000, intervalMs: 1, what: "the server to be up" });
    expect(value).toBe("up");
  });

  it("fails after its timeout, saying what it waited for, how long, and the last answer it saw", async () => {
    const startedAt = Date.now();
    const failure = waitFor(() => ({ status: "running" }), { until: (run) => run.status !== "running", timeoutMs: 60, intervalMs: 10, what: "run 7 to finish" });
    await expect(failure).rejects.toThrow(/timed out after \d+ ms \(limit 60 ms, \d+ probes\) waiting for run 7 to finish; last saw the value \{"status":"running"\}/);
    const waited = Date.now() - startedAt;
    expect(waited).toBeGreaterThanOrEqual(55);
    expect(waited).toBeLessThan(1000);
  });

  it("reports the last error a throwing probe gave, as the message and the cause", async () => {
    const reason = new Error("connection refused");
    const failure = await waitFor(() => {
      throw reason;
    }, { timeoutMs: 30, intervalMs: 5, what: "/api/ready to answer" }).catch((error: unknown) => error as Error);
    expect(failure.message).toMatch(/waiting for \/api\/ready to answer; last saw the error Error: connection refused$/);
    expect(failure.cause).toBe(reason);
  });
});

describe("sleep", () => {
  it("waits about as long as asked", async () => {
    const startedAt = Date.now();
    await sleep(30);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(25);
  });
});
