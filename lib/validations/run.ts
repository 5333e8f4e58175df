import { z } from "zod";
import { STRATEGY_NAMES } from "../locks/strategies";
import { check } from "./checks";

export const LOAD_TOOLS = ["node", "k6"] as const;
export const LOAD_MODELS = ["closed", "open"] as const;

/** `POST /api/admin/runs`: the sale to reset, the strategy and knobs, and the load to drive. */
export const runCreateSchema = z
  .object({
    strategy: z.enum(STRATEGY_NAMES).optional(),
    lockTtlMs: z.number().int().min(1).max(600_000).optional(),
    waitTimeoutMs: z.number().int().min(0).max(120_000).optional(),
    workMs: z.number().int().min(0).max(60_000).optional(),
    lockDelayMs: z.number().int().min(0).max(60_000).optional(),
    initialStock: z.number().int().min(0).max(100_000).default(100),
    tool: z.enum(LOAD_TOOLS).default("node"),
    vus: z.number().int().min(1).max(2_000).default(50),
    /** closed: `vus` buyers back to back; open: buyers arrive at `rate`/s, at most `vus` in flight. */
    model: z.enum(LOAD_MODELS).default("closed"),
    rate: z.number().int().min(1).max(20_000).optional(),
    durationMs: z.number().int().min(500).max(600_000).optional(),
    totalRequests: z.number().int().min(1).max(200_000).optional(),
    /** Launch the built-in driver from the server (the dashboard's Run button). */
    start: z.boolean().default(false),
    scenario: z.string().min(1).max(64).optional(),
  })
  .strict()
  .refine((run) => !(run.durationMs && run.totalRequests), check("load_bound", ["totalRequests"]))
  .refine((run) => run.model === "closed" || run.rate !== undefined, check("open_needs_rate", ["rate"]));
export type RunCreate = z.infer<typeof runCreateSchema>;

/** A count the runs table keeps: Postgres' INT4 holds up to 2^31 − 1 (beyond it, the insert failed: a 500). */
const count = z.number().int().min(0).max(2_147_483_647);
/** A run's length as the tool measured it: a day at the most (the stack's claim on a run is far shorter). */
const runLengthMs = z.number().positive().max(86_400_000);

/** Live counters the load tool reports while it runs. */
export const runProgressSchema = z
  .object({
    requests: count,
    bought: count,
    soldOut: count,
    busy: count,
    errors: count,
    elapsedMs: z.number().min(0),
  })
  .strict();
export type RunProgress = z.infer<typeof runProgressSchema>;

const latency = z.number().min(0);

const loadFigures = {
  requests: count,
  bought: count,
  soldOut: count,
  busy: count,
  errors: count,
  durationMs: runLengthMs,
  latencyMs: z.object({ p50: latency, p95: latency, p99: latency, max: latency.optional() }).strict(),
};

/** What a run keeps of any tool's summary: k6's is read into these figures, then held to the same bounds. */
export const loadSummarySchema = z.object(loadFigures).strict();

/** The built-in driver's summary. */
const nodeSummarySchema = z.object({ tool: z.literal("node"), ...loadFigures }).strict();

/** k6's own handleSummary data, sent as is; the server reads the metrics it needs from it. */
const k6SummarySchema = z
  .object({
    tool: z.literal("k6"),
    k6Summary: z.object({
      metrics: z.record(z.string(), z.object({ values: z.record(z.string(), z.number()) }).passthrough()),
      state: z.object({ testRunDurationMs: z.number().positive() }).passthrough(),
    }).passthrough(),
  })
  .strict();

export const runCompleteSchema = z.discriminatedUnion("tool", [nodeSummarySchema, k6SummarySchema]);
export type RunComplete = z.infer<typeof runCompleteSchema>;
