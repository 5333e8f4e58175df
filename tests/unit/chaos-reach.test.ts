import { describe, expect, it } from "vitest";
import { CHAOS_STRATEGIES, everyFaultHit, faultsFor, nextStrategy } from "../chaos/fault-reach";

const wave = { startedAt: 1000, endedAt: 5000 };

describe("a chaos fault counts only when it formed", () => {
  it("counts a fault put in force while the first wave's purchases were in flight, with units sold after", () => {
    expect(everyFaultHit(wave, 6000, [{ name: "kill-app", from: 2000, to: 2100 }])).toBe(true);
  });

  it("does not count a fault that fired between the waves, though the second wave sold after it", () => {
    // It waited for more units than the first wave sold: no buyer was in flight when it fired.
    expect(everyFaultHit(wave, 9000, [{ name: "stop-postgres", from: 5200, to: 7000 }])).toBe(false);
  });

  it("does not count a run when one of its faults missed, nor a fault after the last unit sold, nor a run that sold nothing", () => {
    expect(everyFaultHit(wave, 6000, [{ name: "kill-app", from: 2000, to: 2100 }, { name: "pause-app", from: 5000, to: 6000 }])).toBe(false);
    expect(everyFaultHit(wave, 2500, [{ name: "kill-app", from: 3000, to: 3100 }])).toBe(false);
    expect(everyFaultHit(wave, undefined, [{ name: "kill-app", from: 2000, to: 2100 }])).toBe(false);
    expect(everyFaultHit(wave, 6000, [{ name: "kill-app", from: 900, to: 950 }])).toBe(false);
  });
});

describe("a strategy draws only faults that reach what it uses", () => {
  it("stops nodes 2–5 only under Redlock, holds back renewals only under token-watchdog, pauses only what a fence guards", () => {
    expect(faultsFor("token-fencing")).toEqual(["kill-redis-1", "kill-app", "pause-app", "stop-postgres"]);
    expect(faultsFor("token-watchdog")).toEqual(["kill-redis-1", "kill-app", "stop-postgres", "delay-renewal"]);
    expect(faultsFor("redlock")).toEqual(["stop-redis", "kill-redis-1", "kill-app", "stop-postgres"]);
    expect(faultsFor("pg-for-update")).toEqual(["kill-redis-1", "kill-app", "pause-app", "stop-postgres"]);
    expect(faultsFor("atomic")).toEqual(["kill-redis-1", "kill-app", "pause-app", "stop-postgres"]);
  });

  it("plays every strategy before any twice, whatever runs missed", () => {
    const counted: (typeof CHAOS_STRATEGIES)[number][] = [];
    for (let run = 0; run < CHAOS_STRATEGIES.length; run++) counted.push(nextStrategy(counted));
    expect(new Set(counted).size).toBe(CHAOS_STRATEGIES.length);
    // A run that missed is not counted: the same strategy is played again.
    expect(nextStrategy(["token-fencing"])).toBe("token-watchdog");
    expect(nextStrategy(["token-fencing", "token-watchdog", "redlock", "pg-for-update", "atomic", "redlock"])).toBe("token-fencing");
  });
});
