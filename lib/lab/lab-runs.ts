import { getRedis } from "../redis";
import type { LabCase, Pitfall } from "./scenarios";

/** A lab run's record, kept in Redis (JSON) for a day: what the lab page and the tests poll. */
export interface CaseOutcome {
  readonly orders: number;
  readonly remaining: number;
  readonly initialStock: number;
  readonly oversell: number;
  readonly lostStock: number;
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
}

export interface LabCaseRecord {
  readonly id: string;
  readonly label: string;
  readonly expect: LabCase["expect"];
  status: "pending" | "running" | "done" | "error";
  outcome?: CaseOutcome;
  error?: string;
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
}

const ACTIVE_KEY = "locklab:lab:active";
const key = (id: number) => `locklab:lab-run:${id}`;
const TTL_S = 24 * 60 * 60;

/** A load run holds the sale while it is in progress (see lib/runs/runs.ts). */
const LOAD_RUN_ACTIVE_KEY = "locklab:run:active";

/** Undefined when another lab run, or a load run, is using the stack. */
export async function createLabRun(scenarioId: string, cases: readonly LabCase[]): Promise<LabRunRecord | undefined> {
  const redis = getRedis();
  if (await redis.exists(LOAD_RUN_ACTIVE_KEY)) return undefined;
  const id = await redis.incr("locklab:lab-run:seq");
  // One lab run at a time: scenarios stop nodes and kill instances.
  if (!(await redis.set(ACTIVE_KEY, String(id), "EX", 600, "NX"))) return undefined;
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

export async function finishLabRun(record: LabRunRecord): Promise<void> {
  await saveLabRun(record);
  const redis = getRedis();
  if (Number(await redis.get(ACTIVE_KEY)) === record.id) await redis.del(ACTIVE_KEY);
}

export async function getLabRun(id: number): Promise<LabRunRecord | undefined> {
  const raw = await getRedis().get(key(id));
  return raw ? (JSON.parse(raw) as LabRunRecord) : undefined;
}

export async function getActiveLabRunId(): Promise<number | undefined> {
  const id = Number(await getRedis().get(ACTIVE_KEY));
  return id > 0 ? id : undefined;
}
