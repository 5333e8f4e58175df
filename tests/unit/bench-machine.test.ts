import { describe, expect, it } from "vitest";
import { cpuTimesFrom, machineLine, stealShare } from "../../bench/machine";

describe("the machine's state printed with a run", () => {
  const before = "cpu  707445 6432 101735 836901 2980 0 26450 134228 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n";
  const after = "cpu  707487 6432 101773 838777 2980 0 26472 134276 0 0\n";

  it("reads the machine's CPU time and the host's steal from /proc/stat", () => {
    expect(cpuTimesFrom(before)).toEqual({ total: 707445 + 6432 + 101735 + 836901 + 2980 + 0 + 26450 + 134228, steal: 134228 });
    expect(cpuTimesFrom("intr 1 2 3")).toBeUndefined();
    expect(cpuTimesFrom("cpu  1 2 x")).toBeUndefined();
  });

  it("gives the host's share of the CPU time between two readings", () => {
    // 42 + 38 + 1876 + 22 + 48 ticks went by, 48 of them stolen.
    expect(stealShare(cpuTimesFrom(before), cpuTimesFrom(after))).toBeCloseTo(48 / 2026, 6);
    expect(stealShare(cpuTimesFrom(after), cpuTimesFrom(before))).toBeUndefined();
    expect(stealShare(undefined, cpuTimesFrom(after))).toBeUndefined();
  });

  it("prints the probe and each part's share", () => {
    const line = machineLine(301.4, 476.6, [{ name: "the whole run", share: 0.0412 }, { name: "the hall", share: undefined }]);
    expect(line).toContain("CPU probe 301 ms before the run, 477 ms after");
    expect(line).toContain("the whole run 4.1 %, the hall —");
  });
});
