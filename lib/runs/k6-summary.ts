/**
 * Reads the numbers a run needs from k6's handleSummary data. The metric names are the ones
 * load/flash-sale.js defines: counters purchase_requests / _bought / _sold_out / _busy / _errors
 * and the trend purchase_duration (ms), summarised with p(50), p(95), p(99) and max.
 */
export interface LoadSummary {
  readonly requests: number;
  readonly bought: number;
  readonly soldOut: number;
  readonly busy: number;
  readonly errors: number;
  readonly durationMs: number;
  readonly latencyMs: { readonly p50: number; readonly p95: number; readonly p99: number; readonly max?: number };
}

export interface K6SummaryData {
  metrics: Record<string, { values: Record<string, number> }>;
  state: { testRunDurationMs: number };
}

export const K6_METRICS = Object.freeze({
  requests: "purchase_requests",
  bought: "purchase_bought",
  soldOut: "purchase_sold_out",
  busy: "purchase_busy",
  errors: "purchase_errors",
  duration: "purchase_duration",
});

export function summaryFromK6(data: K6SummaryData): LoadSummary {
  const value = (metric: string, stat: string) => data.metrics[metric]?.values[stat] ?? 0;
  return {
    requests: value(K6_METRICS.requests, "count"),
    bought: value(K6_METRICS.bought, "count"),
    soldOut: value(K6_METRICS.soldOut, "count"),
    busy: value(K6_METRICS.busy, "count"),
    errors: value(K6_METRICS.errors, "count"),
    durationMs: data.state.testRunDurationMs,
    latencyMs: {
      p50: value(K6_METRICS.duration, "p(50)") || value(K6_METRICS.duration, "med"),
      p95: value(K6_METRICS.duration, "p(95)"),
      p99: value(K6_METRICS.duration, "p(99)"),
      max: value(K6_METRICS.duration, "max"),
    },
  };
}
