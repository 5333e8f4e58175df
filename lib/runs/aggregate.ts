import type { RunRecord } from "./record";

export interface StrategyAggregate {
  strategy: string;
  runs: number;
  /**
   * Mean and worst units sold beyond the stock (orders − initial stock where positive). A run that
   * left units on the shelf sold none beyond it: its signed oversell (−98,722 for a sale of 100,000
   * that sold 1,278) says how much was left, not how much was oversold, and a mean over sales of
   * different sizes would draw that as the strategy's figure.
   */
  oversold: number;
  maxOversold: number;
  /** Mean and worst units sold twice, over the runs that counted units (older runs did not). */
  doubleSold: number | null;
  maxDoubleSold: number | null;
  doubleSoldRuns: number;
  throughput: number;
  p95Ms: number;
}

/** Completed runs grouped by strategy: units sold beyond the stock, units sold twice, throughput and p95 (with run counts). */
export function aggregateByStrategy(runs: readonly RunRecord[]): StrategyAggregate[] {
  const groups = new Map<string, RunRecord[]>();
  for (const run of runs) {
    if (run.status !== "completed") continue;
    groups.set(run.strategy, [...(groups.get(run.strategy) ?? []), run]);
  }
  const mean = (values: number[]) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0);
  const oneDecimal = (value: number) => Math.round(value * 10) / 10;
  return [...groups.entries()].map(([strategy, group]) => {
    const oversold = group.map((run) => Math.max(0, run.oversell ?? 0));
    // An old run's unknown count is not a zero: it stays out of the mean.
    const doubleSold = group.flatMap((run) => (run.doubleSold === null ? [] : [run.doubleSold]));
    return {
      strategy,
      runs: group.length,
      oversold: oneDecimal(mean(oversold)),
      maxOversold: Math.max(...oversold),
      doubleSold: doubleSold.length ? oneDecimal(mean(doubleSold)) : null,
      maxDoubleSold: doubleSold.length ? Math.max(...doubleSold) : null,
      doubleSoldRuns: doubleSold.length,
      throughput: Math.round(mean(group.map((run) => run.throughput ?? 0))),
      p95Ms: Math.round(mean(group.map((run) => run.p95Ms ?? 0))),
    };
  });
}
