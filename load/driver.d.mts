/** Types for load/driver.mjs, so TypeScript callers (scripts/load.ts, the bench, tests) can import it. */
export interface LoadCounts {
  readonly requests: number;
  readonly bought: number;
  readonly soldOut: number;
  readonly busy: number;
  readonly errors: number;
}

/** Exactly the body the run API's completion call takes for the node tool. */
export interface LoadSummary extends LoadCounts {
  readonly tool: "node";
  readonly durationMs: number;
  readonly latencyMs: { readonly p50: number; readonly p95: number; readonly p99: number; readonly max: number };
}

export interface LoadOptions {
  /** Base URL of the store (nginx): a loopback host, or one listed in LOAD_ALLOWED_HOSTS. */
  readonly url: string;
  /** Concurrent connections (closed model), or the most purchases in flight (open model). @default 50 */
  readonly vus?: number;
  /** Open model: buyers arriving per second, whatever the store answers. Absent: the closed model. */
  readonly rate?: number;
  /** Open model: the arrival rate climbs from 0 to `rate` over this long. @default 0 */
  readonly rampMs?: number;
  /** Stop after this many answers, errors included. @default 200 (when no durationMs) */
  readonly requests?: number;
  /** Stop after this long instead of after a number of requests. */
  readonly durationMs?: number;
  /** Report progress to and complete this run. */
  readonly run?: { readonly id: number; readonly token: string };
  /** No progress bar. @default false */
  readonly quiet?: boolean;
  /** A request without an answer by then counts as an error. @default 30000 */
  readonly requestTimeoutMs?: number;
  /** Hard safety stop. @default durationMs + 30 s, or 5 minutes */
  readonly maxMs?: number;
  /** @default 500 */
  readonly progressIntervalMs?: number;
  /** @default "node-<run id or random hex>" */
  readonly buyerPrefix?: string;
  readonly onProgress?: (progress: LoadCounts & { readonly elapsedMs: number }) => void;
  /** Stop early and still summarise (and complete the run). */
  readonly signal?: AbortSignal;
  /** Where the progress bar goes. @default process.stderr */
  readonly progressStream?: NodeJS.WritableStream & { isTTY?: boolean };
}

export declare const DEFAULT_LOAD_OPTIONS: Readonly<{
  vus: number;
  requests: number;
  requestTimeoutMs: number;
  progressIntervalMs: number;
  quiet: boolean;
}>;

/** The completion call failed; the load itself ran and `summary` holds what it measured. */
export declare class CompletionError extends Error {
  readonly summary: LoadSummary;
  constructor(message: string, summary: LoadSummary);
}

export declare function runLoad(options: LoadOptions): Promise<LoadSummary>;
export declare function latencySummary(latencies: Float64Array, count: number): LoadSummary["latencyMs"];
export declare function progressLine(
  counts: LoadCounts,
  goal: { total?: number; elapsedMs: number; durationMs?: number },
): string;
export declare function parseCliArgs(argv: string[], env?: Record<string, string | undefined>):
  | { help: true }
  | (Omit<LoadOptions, "run"> & { help?: undefined; run?: { id: number; token: string } });
