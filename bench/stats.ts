/** Figures of one benchmark row. Latencies in ms; `starved`: buyers with no answer within the bound. */
export interface RowResult {
  readonly level: "in-process" | "http";
  readonly label: string;
  readonly buyers: number;
  readonly windowMs: number;
  readonly attempts: number;
  readonly bought: number;
  readonly busy: number;
  readonly soldOut: number;
  readonly errors: number;
  readonly starved: number;
  readonly purchasesPerSecond: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly redisCommandsPerPurchase: number;
  readonly peakHolders: number;
  /** Purchases the stock does not account for: bought − (stock before − stock after). */
  readonly lostUpdates: number;
  /** For a row measured in several windows (the timeline's on/off rows): each window's purchases/s, in order. */
  readonly samples?: readonly number[];
  /** In-process rows: the bench process's CPU time (user + system) per purchase, in µs. */
  readonly cpuMicrosPerPurchase?: number;
  /** For a row measured in several windows, in-process: each window's CPU time per purchase (µs), in order. */
  readonly cpuSamples?: readonly number[];
}

/** The middle value (the mean of the middle two for an even count); any order. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * A distribution-free interval for the median of `values`: the k-th smallest and k-th largest, with
 * k the largest rank at which the chance that the true median lies outside is at most 1 − `confidence`
 * (each value falls below the median with probability ½, so the count below is Binomial(n, ½)).
 * `coverage` is the interval's own confidence (≥ `confidence` where the count allows, else the
 * widest interval's, min–max). Says whether two rows that trade places round by round are told apart.
 */
export function medianInterval(values: readonly number[], confidence = 0.95): { low: number; high: number; coverage: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  // P(X < k) for X ~ Binomial(n, ½), for k = 0, 1, …
  const below: number[] = [0];
  let term = 0.5 ** n;
  for (let k = 0; k < n; k += 1) {
    below.push(below[k]! + term);
    term = (term * (n - k)) / (k + 1);
  }
  let k = 1;
  while (k + 1 <= Math.ceil(n / 2) && 1 - 2 * below[k + 1]! >= confidence) k += 1;
  return { low: sorted[k - 1] ?? 0, high: sorted[n - k] ?? 0, coverage: n ? 1 - 2 * below[k]! : 0 };
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? 0;
}

export function latencyFigures(latencies: number[]) {
  const sorted = [...latencies].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? 0 };
}

/** Several windows of one row as one: rates and latencies averaged, counts added, each window's purchases/s kept. */
export function meanOfAll(windows: readonly RowResult[]): RowResult {
  const sum = (pick: (w: RowResult) => number) => windows.reduce((total, w) => total + pick(w), 0);
  const mean = (pick: (w: RowResult) => number) => sum(pick) / windows.length;
  return {
    ...windows[0]!,
    windowMs: sum((w) => w.windowMs),
    attempts: sum((w) => w.attempts),
    bought: sum((w) => w.bought),
    busy: sum((w) => w.busy),
    soldOut: sum((w) => w.soldOut),
    errors: sum((w) => w.errors),
    starved: sum((w) => w.starved),
    purchasesPerSecond: mean((w) => w.purchasesPerSecond),
    p50: mean((w) => w.p50),
    p99: mean((w) => w.p99),
    max: Math.max(...windows.map((w) => w.max)),
    redisCommandsPerPurchase: mean((w) => w.redisCommandsPerPurchase),
    peakHolders: Math.max(...windows.map((w) => w.peakHolders)),
    lostUpdates: sum((w) => w.lostUpdates),
    samples: windows.map((w) => w.purchasesPerSecond),
    ...(windows.every((w) => w.cpuMicrosPerPurchase !== undefined) && {
      cpuMicrosPerPurchase: mean((w) => w.cpuMicrosPerPurchase!),
      cpuSamples: windows.map((w) => w.cpuMicrosPerPurchase!),
    }),
  };
}
