import type { AnomalyReport } from "./anomalies";
import type { TimelineEvent } from "./events";

/** The most events a kept timeline holds before it is sampled. */
export const KEEP_LIMIT = 20_000;

/**
 * How a big timeline was sampled, as numbers: the page says it in the reader's language
 * (messages `timeline.sampled`). `every`: one in how many of the other holders was kept (0: none).
 */
export interface TimelineSample {
  readonly shown: number;
  readonly holders: number;
  readonly anomalous: number;
  readonly every: number;
}

/**
 * Cuts a big run's timeline down to about `limit` events: every event of every holder named by
 * an anomaly, every fault, and the whole lanes of an evenly spread share of the other holders.
 * Lanes are kept or dropped whole, so no kept holder is missing a step.
 */
export function sampleEvents(
  events: readonly TimelineEvent[],
  report: AnomalyReport,
  limit = KEEP_LIMIT,
): { events: readonly TimelineEvent[]; sampled?: TimelineSample } {
  if (events.length <= limit) return { events };
  const keep = new Set(report.anomalies.flatMap((anomaly) => anomaly.holders));
  const perHolder = new Map<string, number>();
  for (const event of events) if (event.holder) perHolder.set(event.holder, (perHolder.get(event.holder) ?? 0) + 1);
  const kept = (id: string) => keep.has(id);
  let budget = limit - events.filter((event) => !event.holder || kept(event.holder)).length;
  const others = [...perHolder.keys()].filter((id) => !kept(id));
  const averageLane = others.length ? others.reduce((sum, id) => sum + perHolder.get(id)!, 0) / others.length : 1;
  const share = Math.max(0, Math.min(1, budget / (averageLane * Math.max(1, others.length))));
  const every = share > 0 ? Math.max(1, Math.round(1 / share)) : Infinity;
  others.forEach((id, index) => {
    if (index % every === 0 && budget >= perHolder.get(id)!) {
      keep.add(id);
      budget -= perHolder.get(id)!;
    }
  });
  const sampledHolders = [...perHolder.keys()].filter(kept).length;
  const anomalous = new Set(report.anomalies.flatMap((anomaly) => anomaly.holders)).size;
  return {
    events: events.filter((event) => !event.holder || kept(event.holder)),
    sampled: { shown: sampledHolders, holders: perHolder.size, anomalous, every: every === Infinity ? 0 : every },
  };
}

/**
 * A stored sample's numbers (SaleTimeline.sampled, a text column: they are kept as JSON in it). A
 * timeline kept before they were holds the English sentence it was shown with then: given as is.
 */
export function sampleOfStored(stored: string | null | undefined): TimelineSample | string | undefined {
  if (!stored) return undefined;
  let value: Partial<Record<keyof TimelineSample, unknown>> | null;
  try {
    value = JSON.parse(stored) as typeof value;
  } catch {
    return stored;
  }
  const { shown, holders, anomalous, every } = value ?? {};
  const counts = [shown, holders, anomalous, every];
  return counts.every((n) => Number.isInteger(n) && (n as number) >= 0) ? ({ shown, holders, anomalous, every } as TimelineSample) : stored;
}
