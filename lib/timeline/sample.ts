import type { AnomalyReport } from "./anomalies";
import type { TimelineEvent } from "./events";

/** The most events a kept timeline holds before it is sampled. */
export const KEEP_LIMIT = 20_000;

/**
 * Cuts a big run's timeline down to about `limit` events: every event of every holder named by
 * an anomaly, every fault, and the whole lanes of an evenly spread share of the other holders.
 * Lanes are kept or dropped whole, so no kept holder is missing a step.
 */
export function sampleEvents(
  events: readonly TimelineEvent[],
  report: AnomalyReport,
  limit = KEEP_LIMIT,
): { events: readonly TimelineEvent[]; sampled?: string } {
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
    sampled:
      `sampled: ${sampledHolders} of ${perHolder.size} holders shown — all ${anomalous} involved in an anomaly, ` +
      `and one in ${every === Infinity ? "none" : every} of the others; faults are all shown`,
  };
}
