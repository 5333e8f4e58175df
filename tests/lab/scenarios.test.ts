/**
 * Every pitfall-lab scenario, headless, through the same API the lab page's Run button uses.
 * Each unsafe setting must show its pitfall in at least 95 % of repetitions, rounded up and never
 * fewer than one (19 of 20; 2 of 2), each fix must hold in all of them — judged by the tests' own
 * checker (each case's sale counted from Postgres and Redis read directly), not by the server's
 * `asExpected`; the server's figures must agree with the checker's. `npm test` plays each scenario
 * once (LAB_REPS=1: two took 14 of `npm test`'s 47 minutes on a fresh clone, three 21); how
 * reliably each pitfall forms is `npm run test:lab`'s to show, with 20.
 * After every scenario: no Redis node stopped, no instance paused, config back to defaults.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { LabCaseRecord, LabRunRecord } from "@/lib/lab/lab-runs";
import { ALL_PITFALLS, type LabCase, type Pitfall } from "@/lib/lab/scenario-types";
import { SCENARIOS } from "@/lib/lab/scenarios";
import { getFaults } from "@/lib/lab/faults";
import { getConfig, getDefaultConfig, getActiveConfig } from "@/lib/sale/config";
import { checkSale, peakHolders } from "../support/accounting";
import { adminFetch, signIn } from "../support/admin";
import { stackControl } from "../support/stack";

const REPS = Number(process.env.LAB_REPS ?? 1);
const PITFALL_SHARE = 0.95;
/** A threshold of 0 (floor of 0.95 × 1) would be a test that cannot fail. */
const PITFALLS_NEEDED = Math.max(1, Math.ceil(REPS * PITFALL_SHARE));
/** A scenario's run, with room for a fencing case played again when its fault did not form (lib/lab/lab-runs.ts). */
const RUN_TIMEOUT_MS = 180_000;
const SOLD_TWICE_WHEN_TWO_HOLD = ["bare-majority", "restart-empty"];

let cookie: string;
beforeAll(async () => {
  cookie = await signIn();
});

async function runScenario(id: string): Promise<LabRunRecord> {
  const started = await adminFetch(cookie, "POST", `/api/admin/lab/scenarios/${id}/run`);
  expect(started.status, JSON.stringify(started.json)).toBe(202);
  const labRunId = (started.json.labRun as LabRunRecord).id;
  const deadline = Date.now() + RUN_TIMEOUT_MS;
  while (Date.now() < deadline) {
    // A case may freeze or kill the instance that answers this poll (or nginx may have just taken
    // it out of rotation): such a poll is asked again, within the same deadline.
    const polled = await adminFetch(cookie, "GET", `/api/admin/lab/runs/${labRunId}`).catch(() => undefined);
    const labRun = polled?.status === 200 ? (polled.json.labRun as LabRunRecord | undefined) : undefined;
    if (labRun && labRun.status !== "running") return labRun;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`lab run ${labRunId} did not finish within ${RUN_TIMEOUT_MS} ms`);
}

async function expectEverythingBack() {
  const status = (await stackControl("/status", "GET")) as { redis: { up: boolean }[]; apps: { state: string }[] } & Record<string, { members?: { up: boolean }[] }>;
  expect(status.redis.every((node) => node.up)).toBe(true);
  for (const service of ["sentinel-redis", "sentinel", "redis-cluster", "zookeeper", "etcd", "pgbouncer"]) expect(status[service]?.members?.every((m) => m.up), service).toBe(true);
  expect(status.apps.every((app) => app.state === "running")).toBe(true);
  expect(await getConfig()).toEqual(getDefaultConfig());
  const active = await getActiveConfig();
  expect(await getFaults()).toEqual({});
  expect(active.nestedLock).toBe(false);
}

/**
 * The case judged on its sale as the checker counts it. A deadlock is a stall, not a count: the
 * server saw the buyers turned away, and the checker confirms stock was left for them.
 */
async function judge(entry: LabCaseRecord, labCase: LabCase): Promise<{ asExpected: boolean; why: string }> {
  const outcome = entry.outcome;
  if (!outcome || entry.saleId === undefined) return { asExpected: false, why: entry.error ?? "no outcome" };
  const checked = await checkSale(entry.saleId);
  const peak = await peakHolders(entry.saleId);
  // The product's own figures for the case must be the checker's.
  expect({ orders: outcome.orders, doubleSold: outcome.doubleSold, lostUnits: outcome.lostUnits, phantomUnits: outcome.phantomUnits },
    `${entry.id}: the lab's figures against the checker's`).toEqual(
    { orders: checked.orders, doubleSold: checked.doubleSold, lostUnits: checked.lostUnits, phantomUnits: checked.phantomUnits });
  const seen = new Set<Pitfall>();
  if (checked.oversell > 0) seen.add("oversell");
  if (checked.doubleSold > 0) seen.add("double-sold");
  if (checked.lostUnits > 0) seen.add("lost-stock");
  if (peak > 1) seen.add("two-holders");
  if (outcome.observed.includes("deadlock") && checked.remaining > 0) seen.add("deadlock");
  const watched = labCase.watch ?? ALL_PITFALLS;
  const appeared = [...seen].some((pitfall) => watched.includes(pitfall));
  const honest = checked.doubleSold === 0 && checked.lostUnits === 0 && checked.phantomUnits === 0 && checked.pendingUnits === 0;
  const asExpected = labCase.expect === "pitfall" ? appeared : !appeared && honest && outcome.asExpected;
  return { asExpected, why: `checker ${JSON.stringify({ ...checked, peak, seen: [...seen] })}; server ${JSON.stringify(outcome)}` };
}

describe.each(SCENARIOS.map((scenario) => [String(scenario.id), scenario] as const))("lab scenario %s", (id, scenario) => {
  it(`${scenario.title}: pitfalls appear in ≥ ${PITFALLS_NEEDED}/${REPS}, fixes hold in ${REPS}/${REPS}`, async () => {
    const asExpected = new Map(scenario.cases.map((labCase) => [labCase.id, 0]));
    const notes: string[] = [];
    for (let rep = 0; rep < REPS; rep++) {
      const labRun = await runScenario(id);
      expect(labRun.status, labRun.error).toBe("completed");
      for (const entry of labRun.cases) {
        const labCase = scenario.cases.find((c) => c.id === entry.id)!;
        const judged = await judge(entry, labCase);
        if (judged.asExpected) asExpected.set(entry.id, (asExpected.get(entry.id) ?? 0) + 1);
        else notes.push(`rep ${rep + 1} ${entry.id}: ${judged.why}`);
        // Two Redlock holders both read the same stock: the case counts the unit they both sold.
        if (SOLD_TWICE_WHEN_TWO_HOLD.includes(entry.id) && entry.outcome?.observed.includes("two-holders")) {
          expect(entry.outcome.doubleSold, `${entry.id}: ${JSON.stringify(entry.outcome)}`).toBeGreaterThan(0);
        }
        // A fix holds only when every unit is accounted for.
        if (entry.expect === "fix" && entry.outcome?.asExpected) expect(entry.outcome.safety).toBe("PASS");
        // A play whose fault did not form was played again (lib/lab/lab-runs.ts, faultDidNotForm):
        // the checker must find that it lost or doubled nothing, and had one holder at a time.
        for (const saleId of entry.outcome?.notFormed ?? []) {
          const checked = await checkSale(saleId);
          console.log(`rep ${rep + 1} ${entry.id}: played again, its fault did not form in sale ${saleId}: ${JSON.stringify(checked)}`);
          expect({ ...checked, peak: await peakHolders(saleId) }, `${entry.id}: a play whose fault did not form`).toMatchObject(
            { doubleSold: 0, lostUnits: 0, phantomUnits: 0, pendingUnits: 0, peak: 1 });
          expect(checked.oversell, `${entry.id}: a play whose fault did not form`).toBeLessThanOrEqual(0);
        }
      }
      await expectEverythingBack();
    }
    for (const labCase of scenario.cases) {
      const needed = labCase.expect === "pitfall" ? PITFALLS_NEEDED : REPS;
      expect(asExpected.get(labCase.id), `${labCase.id} (${labCase.expect}) as expected:\n${notes.join("\n")}`).toBeGreaterThanOrEqual(needed);
    }
  }, REPS * RUN_TIMEOUT_MS);
});

describe("lab reset", () => {
  it("puts back every fault an instructor injected by hand", async () => {
    let reset: Awaited<ReturnType<typeof adminFetch>>;
    try {
      for (const body of [
        { action: "stop-redis", node: 2 },
        { action: "set-delay", point: "in-critical-section", ms: 50 },
        { action: "member", service: "zookeeper", member: 3, op: "stop" },
        { action: "member", service: "etcd", member: 2, op: "pause" },
      ]) {
        expect((await adminFetch(cookie, "POST", "/api/admin/faults", body)).status).toBe(200);
      }
      await adminFetch(cookie, "PUT", "/api/admin/config", { strategy: "none", workMs: 9 });
      const faults = await adminFetch(cookie, "GET", "/api/admin/faults");
      expect(faults.json.faults).toMatchObject({ any: true, stoppedRedisNodes: [2], delays: { "in-critical-section": 50 } });
      expect((faults.json.faults as { members: unknown[] }).members).toEqual([
        expect.objectContaining({ service: "zookeeper", index: 3, state: "stopped" }),
        expect.objectContaining({ service: "etcd", index: 2, state: "paused" }),
      ]);
    } finally {
      // Even after a failure above: the shared stack is never left faulted for the tests after it.
      reset = await adminFetch(cookie, "POST", "/api/admin/lab/reset");
    }
    expect(reset.status).toBe(200);
    expect(reset.json.faults).toMatchObject({ any: false, stoppedRedisNodes: [], delays: {}, members: [] });
    await expectEverythingBack();
  });

  it("refuses bad fault requests with field errors and changes nothing", async () => {
    for (const body of [{ action: "stop-redis", node: 0 }, { action: "set-delay", point: "nowhere", ms: 5 }, { action: "explode" },
      { action: "member", service: "consul", member: 1, op: "stop" }, { action: "member", service: "etcd", member: 1, op: "explode" }]) {
      const response = await adminFetch(cookie, "POST", "/api/admin/faults", body);
      expect(response.status).toBe(422);
    }
    await expectEverythingBack();
  });
});
