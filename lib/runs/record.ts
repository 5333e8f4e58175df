import type { Run } from "../generated/prisma/client";
import type { Verdict } from "../sale/accounting";
import type { RunProgress } from "../validations/run";

/** One sample of a run's progress, charted on its page. */
export interface TimelinePoint {
  readonly tMs: number;
  readonly stock: number;
  readonly orders: number;
  readonly requests: number;
  readonly bought: number;
  readonly busy: number;
  readonly errors: number;
}

/** A load run as the API, the dashboard and the CSV export show it. */
export interface RunRecord {
  id: number;
  saleId: number;
  status: string;
  strategy: string;
  scenario: string | null;
  knobs: { lockTtlMs: number; waitTimeoutMs: number; workMs: number; model?: "closed" | "open"; rate?: number };
  tool: string;
  vus: number;
  durationMs: number | null;
  totalRequests: number | null;
  startedAt: string;
  finishedAt: string | null;
  requests: number | null;
  bought: number | null;
  soldOut: number | null;
  busy: number | null;
  errors: number | null;
  throughput: number | null;
  p50Ms: number | null;
  p95Ms: number | null;
  p99Ms: number | null;
  initialStock: number;
  orders: number | null;
  remaining: number | null;
  /** orders − initial, signed. */
  oversell: number | null;
  /** Per-unit accounting (lib/sale/accounting.ts); null for runs recorded before it existed. */
  doubleSold: number | null;
  lostUnits: number | null;
  phantomUnits: number | null;
  outOfRange: number | null;
  pendingUnits: number | null;
  peakHolders: number | null;
  verdict: Verdict | null;
  timeline: TimelinePoint[];
  /** Counters of a run in progress, as last reported by its load tool. */
  progress?: Partial<RunProgress>;
}

export function toRecord(row: Run): RunRecord {
  return {
    id: row.id,
    saleId: row.saleId,
    status: row.status,
    strategy: row.strategy,
    scenario: row.scenario,
    knobs: row.knobs as RunRecord["knobs"],
    tool: row.tool,
    vus: row.vus,
    durationMs: row.durationMs,
    totalRequests: row.totalRequests,
    startedAt: row.startedAt.toISOString(),
    finishedAt: row.finishedAt?.toISOString() ?? null,
    requests: row.requests,
    bought: row.bought,
    soldOut: row.soldOut,
    busy: row.busy,
    errors: row.errors,
    throughput: row.throughput,
    p50Ms: row.p50Ms,
    p95Ms: row.p95Ms,
    p99Ms: row.p99Ms,
    initialStock: row.initialStock,
    orders: row.orders,
    remaining: row.remaining,
    oversell: row.oversell,
    doubleSold: row.doubleSold,
    lostUnits: row.lostUnits,
    phantomUnits: row.phantomUnits,
    outOfRange: row.outOfRange,
    pendingUnits: row.pendingUnits,
    peakHolders: row.peakHolders,
    verdict: (row.verdict as Verdict | null) ?? null,
    timeline: (row.timeline as unknown as TimelinePoint[] | null) ?? [],
  };
}

const CSV_COLUMNS = [
  "id", "status", "scenario", "strategy", "tool", "vus", "initialStock", "requests", "bought", "soldOut", "busy",
  "errors", "throughput", "p50Ms", "p95Ms", "p99Ms", "orders", "remaining", "oversell", "doubleSold", "lostUnits",
  "phantomUnits", "outOfRange", "pendingUnits", "peakHolders", "verdict", "startedAt", "finishedAt",
] as const;

export function runsToCsv(runs: readonly RunRecord[]): string {
  const cell = (value: unknown) => {
    if (value === null || value === undefined) return "";
    const text = typeof value === "number" && !Number.isInteger(value) ? value.toFixed(2) : String(value);
    return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  const knobs = (run: RunRecord) => [run.knobs.lockTtlMs, run.knobs.waitTimeoutMs, run.knobs.workMs];
  const header = [...CSV_COLUMNS, "lockTtlMs", "waitTimeoutMs", "workMs"].join(",");
  const lines = runs.map((run) => [...CSV_COLUMNS.map((column) => cell(run[column])), ...knobs(run).map(cell)].join(","));
  return `${[header, ...lines].join("\n")}\n`;
}

