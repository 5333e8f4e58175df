import type { LockObservation } from "../locks/types";
import { getRedis } from "../redis";
import type { EventKind } from "./events";
import { createTimelineRecorder, type ClientStep, type TimelineRecorder } from "./recorder";
import { processSingleton } from "../process-singleton";

/** One purchase's voice on the timeline: its holder id and the client-side steps it records. */
export interface HolderTimeline {
  /** The id the critical section's Lua records reads and writes under. */
  readonly holder: string;
  /** Records a step now; `leaseEndsAt` (performance.now() ms) is when its lease runs out. */
  note(kind: EventKind, extra?: Partial<Omit<ClientStep, "kind" | "holder">>, leaseEndsAt?: number): void;
  /** What the lock told its holder (renewals, Redlock's votes): pass as the lock's onObserve. */
  observe(observation: LockObservation): void;
}

export function holderTimeline(recorder: TimelineRecorder, saleId: number, holder: string, instance: string): HolderTimeline {
  // Every buyer notes three or four steps: no spread of an empty `extra` (docs/benchmarks.md).
  const note: HolderTimeline["note"] = (kind, extra, leaseEndsAt) =>
    recorder.note(saleId, extra ? Object.assign({ kind, holder, instance }, extra) : { kind, holder, instance }, leaseEndsAt);
  return {
    holder,
    note,
    observe(observation) {
      if (observation.kind === "renewed") note("renewed", {}, performance.now() + observation.leaseLeftMs);
      else if (observation.kind === "renew-failed") note("renew-failed");
      else note("votes", { votes: observation.votes, validityMs: observation.validityMs });
    },
  };
}

/** The app's recorder (node 1's client), one per process. */
export function appRecorder(): TimelineRecorder {
  return processSingleton("timeline.recorder", () => createTimelineRecorder(getRedis));
}
