import type { KeptError } from "../errors";
import { getRedis } from "../redis";
import type { Verdict } from "../sale/accounting";
import { claimStack, getStackClaim, releaseStackClaim } from "../stack/claim";
import type { LabCase, Pitfall } from "./scenario-types";

/** A lab run's record, kept in Redis (JSON) for a day: what the lab page and the tests poll. */
export interface CaseOutcome {
  /** The sale the case ran (its holder timeline is kept under it). */
  readonly saleId?: number;
  readonly orders: number;
  readonly remaining: number;
  readonly initialStock: number;
  /** orders − initial, signed. */
  readonly oversell: number;
  /** The case's accounting, per unit (lib/sale/accounting.ts). */
  readonly doubleSold: number;
  readonly lostUnits: number;
  readonly phantomUnits: number;
  readonly pendingUnits: number;
  /** PASS when no unit was sold twice, lost, or back on the shelf after it was sold, and the sale serves; STUCK when it stopped serving. */
  readonly safety: Verdict;
  /** Whether buyers were still being served at the end (lib/sale/liveness.ts); absent in records from before it. */
  readonly liveness?: "live" | "stuck";
  readonly peakHolders: number;
  readonly staleRefused: number;
  readonly bought: number;
  readonly soldOut: number;
  readonly busy: number;
  readonly unavailable: number;
  readonly lockLost: number;
  readonly errors: number;
  readonly buyers: number;
  readonly purchasesPerSecond: number;
  readonly p50Ms: number;
  readonly maxPgConnections: number;
  readonly observed: readonly Pitfall[];
  readonly pitfallAppeared: boolean;
  /** "the pitfall appeared" or "the fix held". */
  readonly verdict: string;
  /** The outcome is the one the card told the class to predict. */
  readonly asExpected: boolean;
  /** The sales of earlier plays of the case whose fault did not form (faultDidNotForm below); absent when none. */
  readonly notFormed?: readonly number[];
}

/**
 * A fencing case (a fix that needs a stale write refused) proves nothing when no newer holder came
 * to the store while the old holder was paused or cut off: the old holder's write was then the
 * newest, and rightly landed. The store is the witness: one holder inside at a time throughout, and
 * nothing refused (had anyone newer read or written the stock meanwhile, the old write would have
 * been refused, or, with the fence broken, sold a unit twice). Seen once in a CI
 * run (zk-fenced: no stale write refused, nothing sold twice, 19 of 40 buyers answered unavailable),
 * never in 24 plays here, idle or with both cores or the disk kept busy meanwhile.
 */
export function faultDidNotForm(labCase: LabCase, outcome: CaseOutcome): boolean {
  return labCase.expect === "fix" && labCase.require?.staleRefused === true && outcome.staleRefused === 0
    && outcome.peakHolders <= 1 && !outcome.pitfallAppeared && outcome.safety === "PASS";
}

/** A case whose fault did not form is played again, at most this many plays in all: a fence that never refuses still fails. */
export const MAX_PLAYS = 3;

export interface LabCaseRecord {
  readonly id: string;
  readonly label: string;
  readonly expect: LabCase["expect"];
  status: "pending" | "running" | "done" | "error";
  /** Set once the case's sale exists, so its timeline can be watched while it runs. */
  saleId?: number;
  outcome?: CaseOutcome;
  /** Why the case could not be played: the error's English message, and its code and values to translate it by. */
  error?: string;
  errorCode?: KeptError["errorCode"];
  errorValues?: KeptError["errorValues"];
}

export interface LabRunRecord {
  readonly id: number;
  readonly scenarioId: string;
  status: "running" | "completed" | "failed";
  readonly startedAt: string;
  finishedAt?: string;
  cases: LabCaseRecord[];
  /** Every case came out as expected. */
  asExpected?: boolean;
  error?: string;
  errorCode?: KeptError["errorCode"];
  errorValues?: KeptError["errorValues"];
}

const key = (id: number) => `locklab:lab-run:${id}`;
const TTL_S = 24 * 60 * 60;
/** How long a lab run may hold the stack before its claim lapses (a runner that died). */
export const LAB_CLAIM_MS = 10 * 60 * 1000;

/** Undefined when another lab run, or a load run, holds the stack's claim. */
export async function createLabRun(scenarioId: string, cases: readonly LabCase[]): Promise<LabRunRecord | undefined> {
  const redis = getRedis();
  const id = await redis.incr("locklab:lab-run:seq");
  // One user of the stack at a time: scenarios stop nodes and kill instances.
  if (!(await claimStack({ kind: "lab", id }, LAB_CLAIM_MS))) return undefined;
  const record: LabRunRecord = {
    id,
    scenarioId,
    status: "running",
    startedAt: new Date().toISOString(),
    cases: cases.map((labCase) => ({ id: labCase.id, label: labCase.label, expect: labCase.expect, status: "pending" })),
  };
  await saveLabRun(record);
  await redis.set(lastKey(scenarioId), String(id), "EX", TTL_S);
  return record;
}

const lastKey = (scenarioId: string) => `locklab:lab:last:${scenarioId}`;

/** The latest lab run of each scenario (for the lab page to show after a reload). */
export async function getLastLabRuns(scenarioIds: readonly string[]): Promise<Record<string, LabRunRecord>> {
  const redis = getRedis();
  const ids = scenarioIds.length ? await redis.mget(scenarioIds.map(lastKey)) : [];
  const runs = await Promise.all(ids.map((id) => (id ? getLabRun(Number(id)) : undefined)));
  return Object.fromEntries(runs.flatMap((run) => (run ? [[run.scenarioId, run]] : [])));
}

export async function saveLabRun(record: LabRunRecord): Promise<void> {
  await getRedis().set(key(record.id), JSON.stringify(record), "EX", TTL_S);
}

/** Lets go of the stack first: whoever sees the run finished may start the next one at once. */
export async function finishLabRun(record: LabRunRecord): Promise<void> {
  await releaseStackClaim({ kind: "lab", id: record.id });
  await saveLabRun(record);
}

export async function getLabRun(id: number): Promise<LabRunRecord | undefined> {
  const raw = await getRedis().get(key(id));
  return raw ? (JSON.parse(raw) as LabRunRecord) : undefined;
}

export async function getActiveLabRunId(): Promise<number | undefined> {
  const claim = await getStackClaim();
  return claim?.kind === "lab" ? claim.id : undefined;
}
