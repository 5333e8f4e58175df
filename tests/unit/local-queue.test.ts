import { describe, expect, it } from "vitest";
import { acquireLocal } from "@/lib/locks/local-queue";
import { LockBusyError } from "@/lib/locks/types";
import { sleep } from "../support/wait";

describe("the local FIFO queue", () => {
  it("lets buyers in one at a time, in arrival order", async () => {
    const order: number[] = [];
    let inside = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 20 }, async (_, index) => {
        const release = await acquireLocal("fifo", 5_000);
        inside++;
        peak = Math.max(peak, inside);
        order.push(index);
        await sleep(1); // a holder that works a moment, so an overlap would show
        inside--;
        release();
      }),
    );
    expect(peak).toBe(1);
    expect(order).toEqual(Array.from({ length: 20 }, (_, index) => index));
  });

  it("refuses a waiter as busy when the wait timeout passes, and the line moves on", async () => {
    const release = await acquireLocal("timeout", 1_000);
    await expect(acquireLocal("timeout", 20)).rejects.toBeInstanceOf(LockBusyError);
    release();
    const next = await acquireLocal("timeout", 20);
    next();
  });

  it("ignores a second release of the same turn", async () => {
    const first = await acquireLocal("double", 1_000);
    const second = acquireLocal("double", 1_000);
    first();
    first();
    const third = acquireLocal("double", 50);
    const secondRelease = await second;
    await expect(third).rejects.toBeInstanceOf(LockBusyError);
    secondRelease();
  });
});

describe("the local queue's wait timeouts (one timer per queue)", () => {
  it("turns each waiter away at its own deadline, whatever order they came in, and serves the rest in order", async () => {
    const release = await acquireLocal("deadlines", 5_000);
    const startedAt = performance.now();
    const refusedAt = new Map<string, number>();
    const served: string[] = [];
    const wait = (name: string, timeoutMs: number) =>
      acquireLocal("deadlines", timeoutMs).then(
        (next) => {
          served.push(name);
          next();
        },
        (error: unknown) => {
          expect(error).toBeInstanceOf(LockBusyError);
          refusedAt.set(name, performance.now() - startedAt);
        },
      );
    const waits = [wait("long", 400), wait("short", 40), wait("middle", 120), wait("last", 400)];
    await sleep(250);
    expect([...refusedAt.keys()]).toEqual(["short", "middle"]);
    expect(refusedAt.get("short")).toBeGreaterThanOrEqual(39);
    expect(refusedAt.get("short")).toBeLessThan(120);
    expect(refusedAt.get("middle")).toBeGreaterThanOrEqual(119);
    release();
    await Promise.all(waits);
    expect(served).toEqual(["long", "last"]);
  });

  it("keeps no timer running once its line is empty", async () => {
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length;
    const before = timers();
    const first = await acquireLocal("no-timer-left", 60_000);
    const second = acquireLocal("no-timer-left", 60_000);
    expect(timers()).toBe(before + 1);
    first();
    (await second)();
    expect(timers()).toBe(before);
  });
});
