/**
 * The holder timeline drawn from real runs: what the events show must agree with the accounting
 * the tests' own checker counts from Postgres and Redis.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { clearFaults, setFault } from "@/lib/lab/faults";
import { resetConfig } from "@/lib/sale/config";
import { appRecorder } from "@/lib/timeline/holder-timeline";
import type { TimelineView } from "@/lib/timeline/view";
import { currentSaleId, settledSale } from "../support/accounting";
import { adminFetch, signIn } from "../support/admin";
import { PUBLIC_URL, blast, prepareSale, stackControl, type BlastResult } from "../support/stack";
import { waitFor } from "../support/wait";

let cookie: string;
beforeAll(async () => {
  cookie = await signIn();
});
afterEach(async () => {
  await clearFaults();
  await stackControl("/reset-faults");
});
afterAll(() => resetConfig());

/** The steps that end a purchase's turn at the lock: each one that reached the lock records exactly one. */
const END_KINDS: ReadonlySet<string> = new Set(["released", "lost", "busy", "unavailable"]);

/**
 * The sale's timeline once every buyer of `blasted` is in it. Reads and writes are stamped into
 * the stream by Redis itself, but client-side steps (acquired, votes, lost, released, order…) are
 * buffered by each instance and sent every 100 ms (lib/timeline/recorder.ts), so they may land just
 * after the buyer was answered. Each answered purchase noted its end (and a sold one its order)
 * before its answer, after its other steps, and a flush sends the whole buffer: once the stream
 * holds an end for every answered buyer and an order for every sale, nothing of theirs is missing.
 * This process's own marks (the faults it set through stackControl) are sent first.
 * Bound: 10 s, many of the recorders' 100 ms sends even when admin reads through nginx are slow on a
 * loaded machine (each probe builds the whole view; 400 ms, then 2 s, could pass with one or two slow
 * probes). It answers as soon as every end and order is in; a step never sent still fails.
 */
async function timelineOf(saleId: number, blasted: BlastResult): Promise<TimelineView> {
  await appRecorder().flush();
  const answered = blasted.bought + blasted.soldOut + blasted.busy + blasted.unavailable + blasted.lockLost;
  return waitFor(async () => {
    const response = await adminFetch(cookie, "GET", `/api/admin/sales/${saleId}/timeline`);
    if (response.status !== 200) throw new Error(`GET /api/admin/sales/${saleId}/timeline answered ${response.status}`);
    return response.json as unknown as TimelineView;
  }, {
    until: (view) => view.events.filter((event) => END_KINDS.has(event.kind)).length >= answered
      && view.events.filter((event) => event.kind === "order").length >= blasted.bought,
    timeoutMs: 10_000,
    what: `the timeline of sale ${saleId} to hold the end of each of its ${answered} answered buyers and the order of each of the ${blasted.bought} who bought`,
  });
}

describe("the holder timeline", () => {
  it("setnx with work longer than its TTL: overlapping holders, and as many units written twice as the checker counts sold twice", async () => {
    await prepareSale({ strategy: "setnx", lockTtlMs: 40, workMs: 120, waitTimeoutMs: 30_000 }, 5);
    const blasted = await blast(PUBLIC_URL, 16);
    const saleId = await currentSaleId();
    const checked = await settledSale(saleId);
    const view = await timelineOf(saleId, blasted);
    expect(checked.doubleSold).toBeGreaterThan(0);
    expect(view.report.overlaps).toBeGreaterThan(0);
    expect(view.report.unitsSoldTwice).toBe(checked.doubleSold);
    expect(view.accounting.doubleSold).toBe(checked.doubleSold);
    const writes = view.events.filter((event) => event.kind === "write");
    expect(writes.length).toBe(checked.orders);
    // Reads and writes are stamped by Redis: each write follows its holder's read.
    for (const write of writes) {
      const read = view.events.find((event) => event.kind === "read" && event.holder === write.holder);
      expect(read && read.atUs <= write.atUs).toBe(true);
      expect(read?.stock).toBe(write.unit);
    }
    expect(view.report.anomalies.some((anomaly) => anomaly.kind === "overlap" && / — unit \d+ sold twice$/.test(anomaly.note))).toBe(true);
  });

  it("token-lua with work longer than its TTL: two holders overlap, but each stops at its lease check, so no unit is written twice", async () => {
    await prepareSale({ strategy: "token-lua", lockTtlMs: 200, workMs: 400, waitTimeoutMs: 30_000 }, 5);
    const blasted = await blast(PUBLIC_URL, 16);
    const saleId = await currentSaleId();
    const checked = await settledSale(saleId);
    const view = await timelineOf(saleId, blasted);
    expect(view.report.overlaps).toBeGreaterThan(0);
    expect(view.report.unitsSoldTwice).toBe(0);
    expect(checked.doubleSold).toBe(0);
    expect(view.events.some((event) => event.kind === "lost")).toBe(true);
    // Each holder's lease end was recorded, and the overlap began after the first one ran out.
    const acquired = view.events.filter((event) => event.kind === "acquired");
    expect(acquired.length).toBeGreaterThan(1);
    expect(acquired.every((event) => typeof event.leaseEndsAtUs === "number" && event.leaseEndsAtUs > event.atUs)).toBe(true);
  });

  it("token-fencing with a holder paused past its lease: the stale write is refused, and no two overlapping holders both wrote", async () => {
    await prepareSale({ strategy: "token-fencing", lockTtlMs: 200, workMs: 10, waitTimeoutMs: 30_000 }, 10);
    await setFault("pause-before-write", 800, 1);
    const blasted = await blast(PUBLIC_URL, 40);
    const saleId = await currentSaleId();
    const checked = await settledSale(saleId);
    const view = await timelineOf(saleId, blasted);
    expect(view.report.refusedWrites).toBeGreaterThan(0);
    expect(view.events.some((event) => (event.kind === "write-refused" || event.kind === "read-refused") && typeof event.fencingToken === "number")).toBe(true);
    const wrote = new Set(view.events.filter((event) => event.kind === "write").map((event) => event.holder));
    for (const anomaly of view.report.anomalies) {
      if (anomaly.kind === "overlap") expect(anomaly.holders.every((holder) => wrote.has(holder))).toBe(false);
    }
    expect(view.report.unitsSoldTwice).toBe(0);
    expect(checked.doubleSold).toBe(0);
  });

  it("redlock with two nodes stopped: every acquire's votes are recorded per node, the stopped ones as down (or timed out)", async () => {
    await prepareSale({ strategy: "redlock", lockTtlMs: 5000, workMs: 5, waitTimeoutMs: 30_000 }, 10);
    await stackControl("/redis/4/stop");
    await stackControl("/redis/5/stop");
    const blasted = await blast(PUBLIC_URL, 20);
    const saleId = await currentSaleId();
    const view = await timelineOf(saleId, blasted);
    const votes = view.events.filter((event) => event.kind === "votes");
    expect(votes.length).toBeGreaterThan(0);
    for (const event of votes) {
      expect(event.votes).toHaveLength(5);
      // A stopped node never grants or holds: it is down, or — while its old connection is still
      // being torn down — its answer times out.
      for (const vote of event.votes?.slice(3) ?? []) expect(["down", "timeout"]).toContain(vote);
    }
    expect(votes.some((event) => event.votes?.slice(3).every((vote) => vote === "down"))).toBe(true);
    expect(votes.some((event) => event.votes?.slice(0, 3).every((vote) => vote === "granted"))).toBe(true);
    const faults = view.events.filter((event) => event.kind === "fault-start").map((event) => event.note);
    expect(faults).toEqual(["Redis node 4 stopped", "Redis node 5 stopped"]);
  });

  it("a sale that does not exist answers 404 with a code", async () => {
    const missing = await adminFetch(cookie, "GET", "/api/admin/sales/999999/timeline");
    expect(missing.status).toBe(404);
    expect((missing.json as { code: string }).code).toBe("not_found");
    const bad = await adminFetch(cookie, "GET", "/api/admin/sales/abc/timeline");
    expect(bad.status).toBe(404);
  });
});
