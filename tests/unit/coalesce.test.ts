import { describe, expect, it } from "vitest";
import { coalesced } from "@/lib/coalesce";

/** A read whose every call is numbered, answered when the test says so. */
function controlledRead() {
  const pending: ((value: number) => void)[] = [];
  let calls = 0;
  const read = () => {
    calls += 1;
    const call = calls;
    return new Promise<number>((resolve) => pending.push(() => resolve(call)));
  };
  return { read, calls: () => calls, answer: () => pending.shift()?.(0) };
}

describe("coalesced", () => {
  it("two hundred callers at once cost two readings, never one started before a caller arrived", async () => {
    const { read, calls, answer } = controlledRead();
    const shared = coalesced(read);
    const first = shared();
    // Arrived while reading 1 runs: they share reading 2, which starts only once reading 1 is done.
    const later = Array.from({ length: 200 }, () => shared());
    expect(calls()).toBe(1);
    answer();
    expect(await first).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(calls()).toBe(2);
    answer();
    expect(new Set(await Promise.all(later))).toEqual(new Set([2]));
    expect(calls()).toBe(2);
  });

  it("a failed reading fails only its callers; the next caller reads again", async () => {
    let calls = 0;
    const shared = coalesced(async () => {
      calls += 1;
      if (calls === 1) throw new Error("Postgres is down");
      return calls;
    });
    await expect(shared()).rejects.toThrow("Postgres is down");
    expect(await shared()).toBe(2);
  });
});
