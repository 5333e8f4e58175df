/**
 * A fencing case whose fault did not form (no newer holder reached the store while the holder was
 * paused) is played again; every other outcome stands as it came out.
 */
import { describe, expect, it } from "vitest";
import { faultDidNotForm, type CaseOutcome } from "@/lib/lab/lab-runs";
import { SCENARIOS } from "@/lib/lab/scenarios";
import type { LabCase } from "@/lib/lab/scenario-types";

const caseOf = (scenarioId: string, caseId: string): LabCase => {
  const found = SCENARIOS.find((s) => String(s.id) === scenarioId)?.cases.find((c) => c.id === caseId);
  if (!found) throw new Error(`no case ${scenarioId}/${caseId}`);
  return found;
};

/** A clean fenced outcome: every unit accounted for, nobody else at the store during the pause. */
const outcome = (over: Partial<CaseOutcome> = {}): CaseOutcome => ({
  saleId: 1, orders: 10, remaining: 0, initialStock: 10, oversell: 0, doubleSold: 0, lostUnits: 0, phantomUnits: 0, pendingUnits: 0,
  safety: "PASS", liveness: "live", peakHolders: 1, staleRefused: 0, bought: 10, soldOut: 11, busy: 0, unavailable: 19, lockLost: 0,
  errors: 0, buyers: 40, purchasesPerSecond: 3, p50Ms: 3082, maxPgConnections: 14, observed: [], pitfallAppeared: false,
  verdict: "the fix held", asExpected: false, ...over,
});

describe("faultDidNotForm", () => {
  const fenced = caseOf("zk-session", "zk-fenced");

  it("is the fenced case that refused nothing and sold nothing twice (the CI run's figures)", () => {
    expect(fenced.require?.staleRefused).toBe(true);
    expect(faultDidNotForm(fenced, outcome())).toBe(true);
  });

  it("is not a case whose fence refused a stale write, nor one where a newer holder got in", () => {
    expect(faultDidNotForm(fenced, outcome({ staleRefused: 1, asExpected: true }))).toBe(false);
    expect(faultDidNotForm(fenced, outcome({ peakHolders: 2 }))).toBe(false);
  });

  it("is not a broken fence: a unit sold twice or lost, or a sale that stopped serving, is the fix failing", () => {
    expect(faultDidNotForm(fenced, outcome({ doubleSold: 1, observed: ["double-sold"], pitfallAppeared: true, safety: "FAIL" }))).toBe(false);
    expect(faultDidNotForm(fenced, outcome({ lostUnits: 1, observed: ["lost-stock"], pitfallAppeared: true, safety: "FAIL" }))).toBe(false);
    expect(faultDidNotForm(fenced, outcome({ safety: "STUCK", liveness: "stuck" }))).toBe(false);
  });

  it("is never a pitfall case, nor a fix that asks for no refused write", () => {
    expect(faultDidNotForm(caseOf("zk-session", "zk-unfenced"), outcome())).toBe(false);
    expect(faultDidNotForm(caseOf("zk-session", "zk-lock-delay"), outcome())).toBe(false);
  });
});
