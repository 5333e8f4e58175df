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
