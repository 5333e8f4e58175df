import type { Prisma } from "../generated/prisma/client";
import { getDb } from "../db";
import { getRedis } from "../redis";
import { getCurrentSale, getSaleStats } from "../sale/sale";
import { detectAnomalies } from "./anomalies";
import { STREAM_CAP, TIMELINE_STREAM_TTL_S, eventStreamKey } from "../sale/keys";
import type { TimelineEvent } from "./events";
import { appRecorder } from "./holder-timeline";
import { sampleEvents, sampleOfStored } from "./sample";
import type { TimelineView } from "./view";
import { eventsOfJson, eventsOfStreamEntry, storedJsonOf } from "./wire";

const READ_BATCH = 5_000;
/** Longer than the recorders' flush interval (lib/timeline/recorder.ts). */
const LATE_STEPS_MS = 300;

/** Every event of `saleId` still in its Redis stream, in order. */
export async function readStream(saleId: number): Promise<TimelineEvent[]> {
  const redis = getRedis();
  const events: TimelineEvent[] = [];
  let from = "-";
  for (let batch = 0; batch * READ_BATCH <= STREAM_CAP * 2; batch += 1) {
    const entries = await redis.xrange(eventStreamKey(saleId), from, "+", "COUNT", READ_BATCH);
    for (const [, fields] of entries) events.push(...eventsOfStreamEntry(fields));
    if (entries.length < READ_BATCH) break;
    from = `(${entries[entries.length - 1]![0]}`;
  }
  // Client-side steps arrive in batches after the Lua's stamps: order by time, stably.
  return events.map((event, index) => ({ event, index })).sort((a, b) => a.event.atUs - b.event.atUs || a.index - b.index).map(({ event }) => event);
}

/**
 * Keeps the sale's timeline in Postgres (sampled when big), once its run or lab case ended; the
 * stream then expires. Best effort: a timeline that cannot be kept never fails the run.
 */
export async function keepTimeline(saleId: number): Promise<void> {
  const recorder = appRecorder();
  await recorder.flush();
  // Every instance sends its buffered steps within FLUSH_MS: wait for the other instances' last.
  await new Promise((resolve) => setTimeout(resolve, LATE_STEPS_MS));
  const events = await readStream(saleId);
  const report = detectAnomalies(events);
  const kept = sampleEvents(events, report);
  const data = {
    events: storedJsonOf(kept.events) as unknown as Prisma.InputJsonValue,
    recorded: events.length,
    sampled: kept.sampled ? JSON.stringify(kept.sampled) : null,
    clockErrorMs: recorder.clockErrorMs() ?? 0,
  };
  await getDb().saleTimeline.upsert({ where: { saleId }, create: { saleId, ...data }, update: data });
  await getRedis().expire(eventStreamKey(saleId), TIMELINE_STREAM_TTL_S);
}

/** Display names of the people among `buyers` (workshop mode); whoever shows the timeline knows where they live. */
export type NamesOf = (buyers: readonly string[]) => Promise<ReadonlyMap<string, string>>;

/** The timeline of `saleId`: kept in Postgres, or still being recorded in Redis. */
export async function getTimeline(saleId: number, namesOf: NamesOf): Promise<TimelineView | undefined> {
  const db = getDb();
  const sale = await db.sale.findUnique({ where: { id: saleId }, include: { timeline: true } });
  if (!sale) return undefined;
  const [current, stats] = await Promise.all([getCurrentSale(), getSaleStats(saleId)]);
  const stored = sale.timeline;
  const sampled = sampleOfStored(stored?.sampled);
  const events = stored ? eventsOfJson(stored.events) : await readStream(saleId);
  const people = await namesOf(events.flatMap((event) => (event.buyer ? [event.buyer] : [])));
  return {
    saleId,
    strategy: sale.strategy,
    ...(soldUnder(stats.strategies, sale.strategy) && { strategies: stats.strategies.map((share) => share.strategy) }),
    live: !stored && current.id === saleId,
    events,
    recorded: stored?.recorded ?? events.length,
    ...(sampled && { sampled }),
    clockErrorMs: round1(stored?.clockErrorMs ?? appRecorder().clockErrorMs() ?? 0),
    report: detectAnomalies(events),
    ...(people.size ? { people: Object.fromEntries(people) } : {}),
    accounting: { doubleSold: stats.doubleSold, lostUnits: stats.lostUnits, orders: stats.orders, initialStock: stats.initialStock },
  };
}

const round1 = (n: number) => Math.round(n * 10) / 10;

/** The sale's orders were made under another strategy than the one it started under, or under several. */
const soldUnder = (shares: readonly { readonly strategy: string }[], strategy: string) =>
  shares.length > 1 || (shares.length === 1 && shares[0]!.strategy !== strategy);
