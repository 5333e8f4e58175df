import type Redis from "ioredis";
import { STREAM_CAP, eventStreamKey } from "../sale/keys";
import type { TimelineEvent } from "./events";
import { wireOf, type WireEvent } from "./wire";

/**
 * Client-side timeline events (acquired, renewed, released…), stamped on this process's
 * monotonic clock and moved onto Redis' clock by an offset measured against `TIME`. They are
 * buffered and sent every FLUSH_MS in one pipeline, never on a buyer's path; reads and writes of
 * the stock are recorded by the critical section's own Lua, stamped by Redis.
 */
const FLUSH_MS = 100;
const MAX_BUFFER = 20_000;
/** The clock offset is measured again this often (a process's clock drifts). */
const REMEASURE_MS = 30_000;

/** A client-side step as its holder notes it: the recorder stamps its time and lease end on Redis' clock. */
export type ClientStep = Omit<TimelineEvent, "atUs" | "leaseEndsAtUs">;

/** A noted step, kept as it was given (no copy): it is spelt for the stream only when it is sent. */
interface Pending {
  readonly saleId: number;
  readonly at: number;
  readonly leaseEndsAt: number | undefined;
  readonly step: ClientStep;
}

interface ClockFix {
  /** Redis µs = (performance.timeOrigin + performance.now()) × 1000 + offsetUs */
  readonly offsetUs: number;
  readonly errorMs: number;
  readonly measuredAt: number;
}

export interface TimelineRecorder {
  /** Records a client-side step of sale `saleId`, stamped now (and its lease end `leaseEndsAt`, performance.now() ms). */
  note(saleId: number, step: ClientStep, leaseEndsAt?: number): void;
  /** How far a client-side stamp may be off Redis' clock (half the best round trip measured), ms. */
  clockErrorMs(): number | undefined;
  /** Sends what is buffered now (before a run's timeline is kept). */
  flush(): Promise<void>;
}

export function createTimelineRecorder(redis: () => Redis): TimelineRecorder {
  let buffer: Pending[] = [];
  let clock: ClockFix | undefined;
  let measuring: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;

  async function measure(): Promise<void> {
    let best: ClockFix | undefined;
    for (let sample = 0; sample < 5; sample += 1) {
      const sent = performance.now();
      const [seconds, micros] = await redis().time();
      const answered = performance.now();
      const redisUs = Number(seconds) * 1e6 + Number(micros);
      const localUs = (performance.timeOrigin + (sent + answered) / 2) * 1000;
      const errorMs = (answered - sent) / 2;
      if (!best || errorMs < best.errorMs) best = { offsetUs: redisUs - localUs, errorMs, measuredAt: answered };
    }
    clock = best;
  }

  const toRedisUs = (fix: ClockFix, at: number) => Math.round((performance.timeOrigin + at) * 1000 + fix.offsetUs);

  async function flush(): Promise<void> {
    timer = undefined;
    if (!clock || performance.now() - clock.measuredAt > REMEASURE_MS) {
      measuring ??= measure().finally(() => (measuring = undefined));
      await measuring.catch(() => {});
    }
    const fix = clock;
    if (!fix || buffer.length === 0) return;
    const batch = buffer;
    buffer = [];
    // One stream entry per sale and flush, holding the whole batch: a few commands a second,
    // whatever the purchase rate.
    const bySale = new Map<number, WireEvent[]>();
    for (const { saleId, at, leaseEndsAt, step } of batch) {
      const wire = wireOf(step, toRedisUs(fix, at), leaseEndsAt !== undefined && Number.isFinite(leaseEndsAt) ? toRedisUs(fix, leaseEndsAt) : undefined);
      const list = bySale.get(saleId);
      if (list) list.push(wire);
      else bySale.set(saleId, [wire]);
    }
    const pipeline = redis().pipeline();
    for (const [saleId, events] of bySale) {
      pipeline.xadd(eventStreamKey(saleId), "MAXLEN", "~", STREAM_CAP, "*", "batch", JSON.stringify(events));
    }
    // The timeline is a record, not the sale: a lost batch costs a picture, never a unit.
    await pipeline.exec().catch(() => {});
  }

  return {
    note(saleId, step, leaseEndsAt) {
      if (buffer.length >= MAX_BUFFER) return;
      buffer.push({ saleId, at: performance.now(), leaseEndsAt, step });
      timer ??= setTimeout(() => void flush(), FLUSH_MS);
    },
    clockErrorMs: () => clock?.errorMs,
    async flush() {
      clearTimeout(timer);
      await flush();
    },
  };
}
