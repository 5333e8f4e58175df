import { readFileSync } from "node:fs";
import path from "node:path";
import type Redis from "ioredis";
import { afterEach, describe, expect, it, vi } from "vitest";
import { detectAnomalies } from "@/lib/timeline/anomalies";
import { EVENT_KINDS, type TimelineEvent } from "@/lib/timeline/events";
import { holderTimeline } from "@/lib/timeline/holder-timeline";
import { createTimelineRecorder } from "@/lib/timeline/recorder";
import { eventsOfJson, eventsOfStreamEntry, storedJsonOf } from "@/lib/timeline/wire";

/** 2023-11-14T22:13:20.123456Z, in µs: what Redis' TIME answers in these tests. */
const REDIS_US = 1_700_000_000_123_456;

describe("the critical section's stream entries", () => {
  // The Lua's field list (RECORD_EVENT in lib/purchase/critical-section-scripts.ts): t, k (the
  // KIND), h, i, then the call's own fields; every value a string.
  const fencedWrite = ["t", String(REDIS_US), "k", "write", "h", "ab12cd34", "i", "app-2", "s", "7", "u", "8", "f", "42"];
  const staleWrite = ["t", String(REDIS_US + 9), "k", "write-refused", "h", "ef56ab78", "i", "app-1", "u", "8", "f", "41", "note", "fencing token 41 is older than 42"];

  it("read into the same named event as the letters a kept timeline holds", () => {
    // Kept timelines were stored in the recorder's JSON spelling: there `k` would be the lock token.
    const kept = [
      { t: REDIS_US, kind: "write", h: "ab12cd34", i: "app-2", s: 7, u: 8, f: 42 },
      { t: REDIS_US + 9, kind: "write-refused", h: "ef56ab78", i: "app-1", u: 8, f: 41, note: "fencing token 41 is older than 42" },
    ];
    const named: TimelineEvent[] = [
      { atUs: REDIS_US, kind: "write", holder: "ab12cd34", instance: "app-2", stock: 7, unit: 8, fencingToken: 42 },
      { atUs: REDIS_US + 9, kind: "write-refused", holder: "ef56ab78", instance: "app-1", unit: 8, fencingToken: 41, note: "fencing token 41 is older than 42" },
    ];
    expect([...eventsOfStreamEntry(fencedWrite), ...eventsOfStreamEntry(staleWrite)]).toStrictEqual(named);
    expect(eventsOfJson(kept)).toStrictEqual(named);
  });

  it("lose none of the fields the Lua records", () => {
    const source = readFileSync(path.resolve(__dirname, "../../lib/purchase/critical-section-scripts.ts"), "utf8");
    expect(source).toContain("'t', now[1] .. string.sub('00000' .. now[2], -6), 'k', kind, 'h', holder, 'i', instance, ...)");
    // Every field name the record(…) calls pass after the kind: a new one must be read in lib/timeline/wire.ts.
    const calls = source.match(/record\(KEYS\[\d+\][^\n]*(?:\n\s+'[^\n]*)?/g) ?? [];
    expect(calls.length).toBeGreaterThan(5);
    const kinds: ReadonlySet<string> = new Set(EVENT_KINDS);
    const fields = new Set(calls.flatMap((call) => [...call.matchAll(/'([a-z]+)',/g)].map((match) => match[1]!)).filter((name) => !kinds.has(name)));
    expect([...fields].sort()).toEqual(["f", "note", "s", "u"]);
    const [event] = eventsOfStreamEntry(["t", String(REDIS_US), "k", "write-refused", "h", "ab12cd34", "i", "app-1", "s", "7", "u", "8", "f", "42", "note", "why"]);
    expect(event).toStrictEqual({ atUs: REDIS_US, kind: "write-refused", holder: "ab12cd34", instance: "app-1", stock: 7, unit: 8, fencingToken: 42, note: "why" });
  });

  it("read the reconciler's give-back, and a unit given back and bought again is sold once", () => {
    // GIVE_BACK_UNIT records on the lane of the holder whose reservation it settles, from the reconciler's instance.
    const source = readFileSync(path.resolve(__dirname, "../../lib/purchase/critical-section-scripts.ts"), "utf8");
    expect(source).toContain("record(KEYS[6], ARGV[6], ARGV[7], 'given-back', 'u', ARGV[2], 's', ARGV[2])");
    const entry = (us: number, ...fields: string[]) => ["t", String(REDIS_US + us), ...fields];
    const stream = [
      entry(0, "k", "read", "h", "r1aaaaaa", "i", "app-1", "s", "1"),
      entry(5, "k", "write", "h", "r1aaaaaa", "i", "app-1", "s", "0", "u", "1"),
      entry(3_000_000, "k", "given-back", "h", "r1aaaaaa", "i", "app-2", "u", "1", "s", "1"),
      entry(3_000_100, "k", "read", "h", "r2bbbbbb", "i", "app-1", "s", "1"),
      entry(3_000_105, "k", "write", "h", "r2bbbbbb", "i", "app-1", "s", "0", "u", "1"),
    ];
    const events = stream.flatMap(eventsOfStreamEntry);
    expect(events[2]).toStrictEqual({ atUs: REDIS_US + 3_000_000, kind: "given-back", holder: "r1aaaaaa", instance: "app-2", stock: 1, unit: 1 });
    expect(detectAnomalies(events).unitsSoldTwice).toBe(0);
    // Kept in Postgres and read back, the give-back still counts.
    expect(detectAnomalies(eventsOfJson(storedJsonOf(events))).unitsSoldTwice).toBe(0);
    // Without it, the same two writes are one unit written twice.
    expect(detectAnomalies(events.filter((event) => event.kind !== "given-back")).unitsSoldTwice).toBe(1);
  });

  it("give nothing for an entry without a time or a kind, or a batch that is not JSON", () => {
    expect(eventsOfStreamEntry(["h", "ab12cd34", "s", "7"])).toEqual([]);
    expect(eventsOfStreamEntry(["batch", "{not json"])).toEqual([]);
  });
});

describe("the recorder's stream entries", () => {
  afterEach(() => vi.restoreAllMocks());

  /** A recorder on a fake Redis whose clock reads REDIS_US at performance.now() = 1000 ms, and the fields it XADDs. */
  function recorderOnFakeRedis() {
    vi.spyOn(performance, "now").mockReturnValue(1000);
    const added: string[][] = [];
    const redis = {
      time: async () => [String(Math.floor(REDIS_US / 1e6)), String(REDIS_US % 1e6)],
      pipeline: () => ({
        xadd: (...args: (string | number)[]) => added.push(args.slice(5).map(String)),
        exec: async () => [],
      }),
    } as unknown as Redis;
    return { recorder: createTimelineRecorder(() => redis), added };
  }

  it("write the letters, and read into the same named events as the letters a kept timeline holds", async () => {
    const { recorder, added } = recorderOnFakeRedis();
    recorder.note(3, { kind: "acquire-sent", holder: "ab12cd34", instance: "app-1", buyer: "alice" });
    recorder.note(3, { kind: "acquired", holder: "ab12cd34", instance: "app-1", fencingToken: 42 }, 1000 + 5000);
    recorder.note(3, { kind: "fault-start", holder: "", note: "Redis node 4 stopped" });
    await recorder.flush();

    expect(added).toHaveLength(1);
    const [field, batch] = added[0]!;
    expect(field).toBe("batch");
    // The wire is what it was: streams and kept timelines from before read the same way.
    expect(JSON.parse(batch!)).toEqual([
      { t: REDIS_US, kind: "acquire-sent", h: "ab12cd34", i: "app-1", b: "alice" },
      { t: REDIS_US, kind: "acquired", h: "ab12cd34", i: "app-1", f: 42, exp: REDIS_US + 5_000_000 },
      { t: REDIS_US, kind: "fault-start", h: "", note: "Redis node 4 stopped" },
    ]);

    const named: TimelineEvent[] = [
      { atUs: REDIS_US, kind: "acquire-sent", holder: "ab12cd34", instance: "app-1", buyer: "alice" },
      { atUs: REDIS_US, kind: "acquired", holder: "ab12cd34", instance: "app-1", fencingToken: 42, leaseEndsAtUs: REDIS_US + 5_000_000 },
      { atUs: REDIS_US, kind: "fault-start", holder: "", note: "Redis node 4 stopped" },
    ];
    expect(eventsOfStreamEntry(added[0]!)).toStrictEqual(named);
    // A timeline kept before the fields had names: the old recorder's key order, a lock token in `k`.
    const keptBefore = [
      { kind: "acquire-sent", h: "ab12cd34", i: "app-1", b: "alice", t: REDIS_US },
      { kind: "acquired", h: "ab12cd34", i: "app-1", f: 42, t: REDIS_US, exp: REDIS_US + 5_000_000 },
      { kind: "fault-start", h: "", note: "Redis node 4 stopped", t: REDIS_US },
    ];
    expect(eventsOfJson(keptBefore)).toStrictEqual(named);
    expect(eventsOfJson([{ t: REDIS_US, kind: "acquired", h: "ab12cd34", k: "5f3a9c01" }])).toStrictEqual([
      { atUs: REDIS_US, kind: "acquired", holder: "ab12cd34", lockToken: "5f3a9c01" },
    ]);
    // And a timeline kept now is spelt as the old ones were.
    expect(storedJsonOf(named)).toEqual(keptBefore);
  });

  it("spell a buyer's steps with its holder and instance, with or without fields of their own, each step apart", async () => {
    const { recorder, added } = recorderOnFakeRedis();
    const timeline = holderTimeline(recorder, 5, "cd34ef56", "app-2");
    const extra = { buyer: "bob" };
    timeline.note("acquire-sent", extra);
    timeline.note("acquired", { fencingToken: 7 }, 1000 + 2000);
    timeline.note("released");
    timeline.observe({ kind: "votes", votes: ["granted", "down"], validityMs: 1990 });
    // Steps are kept as noted until sent: the caller's object is not the step, and not changed.
    extra.buyer = "mallory";
    await recorder.flush();

    expect(added).toHaveLength(1);
    expect(JSON.parse(added[0]![1]!)).toEqual([
      { t: REDIS_US, kind: "acquire-sent", h: "cd34ef56", i: "app-2", b: "bob" },
      { t: REDIS_US, kind: "acquired", h: "cd34ef56", i: "app-2", f: 7, exp: REDIS_US + 2_000_000 },
      { t: REDIS_US, kind: "released", h: "cd34ef56", i: "app-2" },
      { t: REDIS_US, kind: "votes", h: "cd34ef56", i: "app-2", votes: ["granted", "down"], validityMs: 1990 },
    ]);
    expect(extra).toEqual({ buyer: "mallory" });
  });
});
