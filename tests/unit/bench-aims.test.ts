import { describe, expect, it } from "vitest";
import { aims, bestPeer, formatAim, shown, type AimInputs } from "@/bench/aims";
import { meanOfAll, medianInterval, type RowResult } from "@/bench/stats";

function row(level: RowResult["level"], label: string, buyers: number, purchasesPerSecond: number, extra: Partial<RowResult> = {}): RowResult {
  return {
    level, label, buyers, purchasesPerSecond, windowMs: 4000, attempts: 1000, bought: 1000, busy: 0, soldOut: 0, errors: 0,
    starved: 0, p50: 5, p99: 20, max: 30, redisCommandsPerPurchase: 10, peakHolders: 1, lostUpdates: 0, ...extra,
  };
}

const PEERS: AimInputs["peers"] = [
  { label: "redis-semaphore Mutex (defaults)", family: "mutex" },
  { label: "redis-semaphore Mutex (tuned acquireTimeout 5000 ms)", family: "mutex" },
  { label: "node-redlock 5-beta (defaults)", family: "redlock" },
  { label: "node-redlock 5-beta (tuned retry 50±50 ms ×100)", family: "redlock" },
];

/** One run where every aim holds; each test spoils one figure. */
function passingRun(): { table: RowResult[]; curve: RowResult[] } {
  const table = [
    row("in-process", "token-lua", 50, 4000, { p99: 25 }),
    row("in-process", "redlock", 50, 3600, { p99: 30 }),
    row("in-process", "redis-semaphore Mutex (defaults)", 50, 1500),
    row("in-process", "redis-semaphore Mutex (tuned acquireTimeout 5000 ms)", 50, 1800),
    row("in-process", "node-redlock 5-beta (defaults)", 50, 700, { p99: 1600 }),
    row("in-process", "node-redlock 5-beta (tuned retry 50±50 ms ×100)", 50, 1000, { p99: 800 }),
    row("http", "token-lua", 50, 400),
    row("http", "atomic", 50, 450),
  ];
  const curve = [10, 50, 200, 1000].flatMap((buyers) => [
    row("in-process", "token-lua", buyers, 4000),
    row("in-process", "redlock", buyers, 3500, { p99: 40 }),
    row("in-process", "pg-for-update", buyers, 450),
    row("in-process", "atomic", buyers, 30000),
    row("in-process", "node-redlock 5-beta (tuned retry 50±50 ms ×100)", buyers, 900, { p99: 900 }),
    row("http", "token-lua", buyers, 400),
    row("http", "atomic", buyers, 450),
  ]);
  return { table, curve };
}

const run = (table: RowResult[], curve: RowResult[]) => aims({ table, curve, peers: PEERS });
const find = (lines: ReturnType<typeof aims>, ...words: string[]) => lines.filter((aim) => words.every((word) => aim.text.includes(word)));

describe("the benchmark's aims", () => {
  it("holds every aim of a good run, each printed with ✓", () => {
    const { table, curve } = passingRun();
    const lines = run(table, curve);
    expect(lines.filter((aim) => !aim.ok).map(formatAim)).toEqual([]);
    // 2 Redlock levels × 2 figures, the Mutex, HTTP, 6 contention lines (in-process ×4, http ×2), curve starvation, table starvation
    expect(lines).toHaveLength(4 + 1 + 1 + 6 + 1 + 1);
    expect(formatAim(lines[0]!)).toMatch(/^✓ redlock ÷ node-redlock 5-beta \(tuned/);
  });

  it("measures redlock against the Redlock peer's best row, not its defaults", () => {
    const { table, curve } = passingRun();
    expect(bestPeer({ table, peers: PEERS }, "redlock")?.label).toBe("node-redlock 5-beta (tuned retry 50±50 ms ×100)");
    // Only the best row is slowed: against the defaults (700/s) redlock would still be 5.1×.
    const slowerThanThreeTimes = table.map((r) => (r.label.includes("tuned retry") ? { ...r, purchasesPerSecond: 1300 } : r));
    const [throughput] = find(run(slowerThanThreeTimes, curve), "redlock ÷", "at 50 buyers", "purchases/s");
    expect(throughput).toMatchObject({ ok: false });
    expect(throughput!.text).toContain("2.77 (aim ≥ 3)");
  });

  it("checks the Redlock aim at 200 buyers from the curve, throughput and p99 both ways", () => {
    const { table, curve } = passingRun();
    const at200 = curve.map((r) => (r.buyers === 200 && r.label === "redlock" ? { ...r, purchasesPerSecond: 2500, p99: 400 } : r));
    const lines = find(run(table, at200), "redlock ÷", "at 200 buyers");
    expect(lines.map((aim) => aim.ok)).toEqual([false, false]);
    expect(lines[1]!.text).toContain("p99 latency: 0.444 (aim ≤ 0.333)");
    expect(find(run(table, curve), "redlock ÷", "at 200 buyers").map((aim) => aim.ok)).toEqual([true, true]);
  });

  it("judges redlock against its peer by the blocks of redlock, peer, peer, redlock when they ran", () => {
    const { table, curve } = passingRun();
    const peer = "node-redlock 5-beta (tuned retry 50±50 ms ×100)";
    // The table's single windows read 2.90× (one slow window of redlock); the blocks, 5 of them, one slow.
    const slowWindow = table.map((r) => (r.label === "redlock" ? { ...r, purchasesPerSecond: 2900 } : r));
    expect(find(run(slowWindow, curve), "redlock ÷", "at 50 buyers", "purchases/s")[0]).toMatchObject({ ok: false });
    const blocks = [
      row("in-process", "redlock (peer blocks)", 50, 0, { samples: [3600, 3500, 1600, 1700, 3700, 3600, 3500, 3400, 3600, 3600], p99: 30 }),
      row("in-process", `${peer} (peer blocks)`, 50, 0, { samples: [1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000], p99: 600 }),
    ];
    const lines = find(run([...slowWindow, ...blocks], curve), "redlock ÷", "at 50 buyers");
    expect(lines.map((aim) => aim.ok)).toEqual([true, true]);
    expect(lines[0]!.text).toContain("median of 5 blocks of redlock, peer, peer, redlock: 3.55, 1.65, 3.65, 3.45, 3.60), purchases/s: 3.55 (aim ≥ 3)");
    expect(lines[1]!.text).toContain("p99 latency (mean of each side's windows): 0.050");
    // The blocks decide both ways: three slow blocks miss the aim though the table's windows would hold it.
    const slowBlocks = [{ ...blocks[0]!, samples: [2000, 2000, 2000, 2000, 2000, 2000, 3600, 3600, 3600, 3600] }, blocks[1]!];
    const [missed] = find(run([...table, ...slowBlocks], curve), "redlock ÷", "at 50 buyers", "purchases/s");
    expect(missed).toMatchObject({ ok: false });
    expect(missed!.text).toContain("purchases/s: 2.00 (aim ≥ 3)");
    // At 200 buyers, with no blocks there, the curve's points still decide.
    expect(find(run([...slowWindow, ...blocks], curve), "redlock ÷", "at 200 buyers", "purchases/s")[0]!.text).not.toContain("blocks");
  });

  it("wants token-lua at twice redis-semaphore's Mutex at its best setting", () => {
    const { table, curve } = passingRun();
    const [held] = find(run(table, curve), "token-lua ÷ redis-semaphore Mutex");
    expect(held).toMatchObject({ ok: true });
    expect(held!.text).toContain("Mutex (tuned acquireTimeout 5000 ms) (its best setting)");
    const fastMutex = table.map((r) => (r.label === "redis-semaphore Mutex (defaults)" ? { ...r, purchasesPerSecond: 2100 } : r));
    const [missed] = find(run(fastMutex, curve), "token-lua ÷ redis-semaphore Mutex");
    expect(missed).toMatchObject({ ok: false });
    expect(missed!.text).toContain("Mutex (defaults)");
  });

  it("wants contended token-lua over HTTP at 0.8 of atomic", () => {
    const { table, curve } = passingRun();
    expect(find(run(table, curve), "token-lua ÷ atomic over HTTP")[0]).toMatchObject({ ok: true, text: expect.stringContaining("0.89 (aim ≥ 0.8)") });
    const slowHttp = table.map((r) => (r.level === "http" && r.label === "token-lua" ? { ...r, purchasesPerSecond: 340 } : r));
    expect(find(run(slowHttp, curve), "token-lua ÷ atomic over HTTP")[0]).toMatchObject({ ok: false, text: expect.stringContaining("0.76") });
  });

  it("judges token-lua ÷ atomic by the paired row's median block when it ran, one slow window spoiling one block", () => {
    const { table, curve } = passingRun();
    // Windows in measured order: per block token-lua, atomic, atomic, token-lua. The main table's
    // single windows (400 ÷ 450) would say 0.89; the blocks decide.
    const token = row("http", "token-lua (paired)", 50, 0, { samples: [404, 400, 300, 298, 404, 402] });
    const atomic = row("http", "atomic (paired)", 50, 0, { samples: [500, 500, 500, 500, 500, 500] });
    const [aim] = find(run([...table, token, atomic], curve), "token-lua ÷ atomic over HTTP");
    expect(aim).toMatchObject({ ok: true, text: expect.stringContaining("median of 3 blocks of token-lua, atomic, atomic, token-lua: 0.80, 0.60, 0.81), purchases/s: 0.80") });
    const slower = row("http", "token-lua (paired)", 50, 0, { samples: [380, 380, 300, 298, 404, 402] });
    expect(find(run([...table, slower, atomic], curve), "token-lua ÷ atomic over HTTP")[0]).toMatchObject({ ok: false, text: expect.stringContaining("purchases/s: 0.76") });
    // One line for the aim either way.
    expect(find(run([...table, token, atomic], curve), "token-lua ÷ atomic over HTTP")).toHaveLength(1);
  });

  it("finds a safe lock's worst point from 50 buyers on, even a dip in the middle of the curve", () => {
    const { table, curve } = passingRun();
    const dip = curve.map((r) => {
      if (r.label !== "pg-for-update") return r;
      // Better than 50 buyers at 10 (not counted), a dip at 200, back up at 1,000.
      const rate = { 10: 100, 50: 500, 200: 350, 1000: 480 }[r.buyers] ?? 0;
      return { ...r, purchasesPerSecond: rate };
    });
    const [pg] = find(run(table, dip), "pg-for-update in-process");
    expect(pg).toMatchObject({ ok: false });
    expect(pg!.text).toContain("50 → 1000 buyers, purchases/s kept at the worst point (200 buyers): 0.70");
    expect(find(run(table, dip), "token-lua in-process", "kept")[0]).toMatchObject({ ok: true });
  });

  it("judges the curve's points measured up and back down by the mean of their windows, and says so", () => {
    const { table, curve } = passingRun();
    const twice = curve.map((r) => {
      if (r.label !== "token-lua" || r.level !== "http" || r.buyers < 50) return r;
      // One slow window at 1,000 buyers alone would read 380 ÷ 500 = 0.76; with both windows of each point, 0.80.
      const samples = { 50: [500, 520], 200: [480, 470], 1000: [380, 436] }[r.buyers as 50 | 200 | 1000];
      return { ...r, samples, purchasesPerSecond: (samples[0]! + samples[1]!) / 2 };
    });
    const [aim] = find(run(table, twice), "token-lua http");
    expect(aim).toMatchObject({ ok: true });
    expect(aim!.text).toContain("purchases/s kept at the worst point (1000 buyers) (each point the mean of 2 windows, up the curve and back down: 380 + 436 ÷ 500 + 520): 0.80");
    // A point measured once says nothing of windows.
    expect(find(run(table, curve), "token-lua http")[0]!.text).not.toContain("windows");
  });

  it("counts starved buyers of the project's locks, not of the peers", () => {
    const { table, curve } = passingRun();
    const peerStarves = table.map((r) => (r.label.startsWith("redis-semaphore") ? { ...r, starved: 3 } : r));
    const peerStarvesOnCurve = curve.map((r) => (r.label.startsWith("node-redlock") ? { ...r, starved: 2 } : r));
    expect(run(peerStarves, peerStarvesOnCurve).every((aim) => aim.ok)).toBe(true);

    const starvedAt1000 = curve.map((r) => (r.label === "pg-for-update" && r.buyers === 1000 ? { ...r, starved: 7 } : r));
    expect(find(run(table, starvedAt1000), "starved buyers on the curve")[0]).toMatchObject({
      ok: false,
      text: "starved buyers on the curve: in-process pg-for-update at 1000 buyers (7)",
    });
    const starvedInTable = table.map((r) => (r.label === "redlock" ? { ...r, starved: 1 } : r));
    expect(find(run(starvedInTable, curve), "starved buyers in:")[0]).toMatchObject({ ok: false });
  });

  it("judges the timeline's cost by the median block, so one slow window spoils one block, not the figure", () => {
    const { table, curve } = passingRun();
    // Three blocks of on, off, off, on: block 2's first "on" window hit a slow moment of the machine.
    const on = row("http", "token-lua (timeline on)", 50, 0, { samples: [400, 396, 300, 398, 402, 398] });
    const off = row("http", "token-lua (timeline off)", 50, 0, { samples: [402, 398, 400, 400, 400, 404] });
    const [aim] = find(run([...table, on, off], curve), "timeline recording");
    expect(aim).toMatchObject({ ok: true });
    expect(aim!.text).toContain("median of 3 blocks of on, off, off, on: 0.995, 0.873, 0.995");
    expect(aim!.text).toContain("purchases/s: 0.995");

    // Recording that really costs 10 % shows in every block.
    const costly = { ...on, samples: on.samples!.map((s, i) => off.samples![i]! * 0.9) };
    expect(find(run([...table, costly, off], curve), "timeline recording")[0]).toMatchObject({ ok: false });

    // Rows without windows (older runs): the two means.
    const plainOn = row("http", "atomic (timeline on)", 50, 940);
    const plainOff = row("http", "atomic (timeline off)", 50, 1000);
    expect(find(run([...table, plainOn, plainOff], curve), "atomic over HTTP, timeline")[0]).toMatchObject({
      ok: false, text: expect.stringContaining("(measured on, off, off, on), purchases/s: 0.940"),
    });
  });

  it("states what node 1's append-only file costs a purchase, by the median block of on and off", () => {
    const { table, curve } = passingRun();
    const on = row("http", "atomic (append-only file on)", 50, 0, { samples: [930, 950, 940, 960] });
    const off = row("http", "atomic (append-only file off)", 50, 0, { samples: [1000, 1000, 1000, 1000] });
    const [aim] = find(run([...table, on, off], curve), "append-only file");
    expect(aim).toMatchObject({ ok: true, text: expect.stringContaining("median of 2 blocks of on, off, off, on: 0.940, 0.950), purchases/s: 0.945 (aim ≥ 0.9)") });
    // A file that halves the purchase rate misses the aim.
    const halved = { ...on, samples: off.samples!.map((s) => s / 2) };
    expect(find(run([...table, halved, off], curve), "append-only file")[0]).toMatchObject({ ok: false });
  });

  it("judges a lock against the serial ceiling by the median of its rounds when they ran, not by single windows", () => {
    const { table, curve } = passingRun();
    const ceiling = "serial ceiling (no lock: one buyer at a time)";
    // Single windows minutes apart: the ceiling caught a fast moment of the machine.
    const single = [row("in-process", ceiling, 50, 5000)];
    expect(find(run([...table, ...single], curve), "token-lua ÷ the serial ceiling")[0]).toMatchObject({ ok: false, text: expect.stringContaining("0.80") });

    // Rounds of ceiling, token-lua, redlock windows: one slow moment of the machine spoils one round.
    const rounds = [
      row("in-process", `${ceiling} (ceiling rounds)`, 50, 0, { samples: [3000, 3100, 4000, 2900, 3000], cpuMicrosPerPurchase: 180 }),
      row("in-process", "token-lua (ceiling rounds)", 50, 0, { samples: [2900, 2950, 2800, 2900, 2400], cpuMicrosPerPurchase: 200 }),
      row("in-process", "redlock (ceiling rounds)", 50, 0, { samples: [2000, 2100, 2000, 2050, 2000] }),
    ];
    const lines = run([...table, ...single, ...rounds], curve);
    const [token] = find(lines, "token-lua ÷ the serial ceiling", "at 50 buyers");
    // Rounds: 0.97, 0.95, 0.70, 1.00, 0.80 → median 0.95.
    expect(token).toMatchObject({ ok: true, text: expect.stringContaining("median of 5 rounds") });
    expect(token!.text).toContain("range 0.70–1.00");
    expect(token!.text).toContain("CPU per purchase 200 vs 180 µs");
    expect(token!.text).toMatch(/: 0\.95 \(aim ≥ 0\.9\)$/);
    const [redlock] = find(lines, "redlock ÷ the serial ceiling", "at 50 buyers");
    expect(redlock).toMatchObject({ ok: false });
    expect(redlock!.text).not.toContain("CPU per purchase");

    // `local` against both round by round (÷ token-lua: 1.03, 1.05, 1.07, 1.03, 1.17 → 1.05), not by its single
    // window, which caught a slow moment.
    const withLocal = run([...table, ...single, ...rounds, row("in-process", "local", 50, 1000),
      row("in-process", "local (ceiling rounds)", 50, 0, { samples: [3000, 3100, 3000, 3000, 2800] })], curve);
    expect(find(withLocal, "local (a lock in the process's memory) faster", "at 50 buyers")).toEqual([
      // Five rounds allow no tighter interval for the median than their smallest and largest (93.75 %).
      { ok: true, text: expect.stringContaining("÷ token-lua 1.051 (93 % interval 1.034–1.167), faster in 5 of 5 rounds; ÷ redlock 1.476 (93 % interval 1.400–1.500), faster in 5 of 5 rounds)") },
    ]);
    const slowLocal = run([...table, ...single, ...rounds,
      row("in-process", "local (ceiling rounds)", 50, 0, { samples: [2800, 2900, 2700, 2800, 2400] })], curve);
    // Slower than token-lua in four rounds of five (0.97, 0.98, 0.96, 0.97, 1.00): not faster, whatever its median share.
    expect(find(slowLocal, "local (a lock in the process's memory) faster", "at 50 buyers")[0]).toMatchObject({
      ok: false, text: expect.stringContaining("÷ token-lua 0.966 (93 % interval 0.964–1.000), faster in 0 of 5 rounds"),
    });
    // Its interval reaches 1: the line says the rounds do not tell local and token-lua apart.
    expect(find(slowLocal, "local (a lock in the process's memory) faster", "at 50 buyers")[0]!.text).toContain("; level with token-lua within what 5 rounds resolve)");
    // No per-window CPU in the rows: nothing said of it.
    expect(find(withLocal, "local (a lock in the process's memory) faster", "at 50 buyers")[0]!.text).not.toContain("CPU per purchase");
  });

  it("says local's CPU per purchase against each lock round by round beside the verdict, without judging by it", () => {
    const { table, curve } = passingRun();
    const rounds = (label: string, samples: number[], cpuSamples: number[]) =>
      row("in-process", `${label} (ceiling rounds)`, 50, 0, { samples, cpuSamples });
    const lines = run([
      ...table,
      rounds("serial ceiling (no lock: one buyer at a time)", [3000, 3000, 3000, 3000, 3000], [80, 80, 80, 80, 80]),
      rounds("token-lua", [2900, 2900, 2900, 2900, 2900], [85, 85, 85, 85, 85]),
      rounds("redlock", [2900, 2900, 2900, 2900, 2900], [80, 80, 80, 80, 80]),
      // Faster than both in every round; its CPU: ÷ token-lua 0.94, 0.94, 1.06, 0.94, 0.94 → 0.94, lower in 4 of 5;
      // ÷ redlock 1.00, 1.00, 1.125, 1.00, 1.00 → 1.00, lower in none.
      rounds("local", [3000, 3000, 3000, 3000, 3000], [80, 80, 90, 80, 80]),
    ], curve);
    const [local] = find(lines, "local (a lock in the process's memory) faster", "at 50 buyers");
    expect(local).toMatchObject({ ok: true });
    expect(local!.text).toContain("faster in 5 of 5 rounds, CPU per purchase 0.94× the lock's, lower in 4 of 5;");
    expect(local!.text).toContain("faster in 5 of 5 rounds, CPU per purchase 1.00× the lock's, lower in 0 of 5)");
  });

  it("keeps every window's rate and CPU per purchase, in order, when it joins a row's windows", () => {
    const joined = meanOfAll([
      row("in-process", "local (ceiling rounds)", 50, 3000, { cpuMicrosPerPurchase: 80 }),
      row("in-process", "local (ceiling rounds)", 50, 2000, { cpuMicrosPerPurchase: 90 }),
    ]);
    expect(joined).toMatchObject({ purchasesPerSecond: 2500, samples: [3000, 2000], cpuMicrosPerPurchase: 85, cpuSamples: [80, 90] });
    // A window without CPU (an HTTP row): none for the row either.
    const http = meanOfAll([row("http", "token-lua (paired)", 50, 3000), row("http", "token-lua (paired)", 50, 2000)]);
    expect(http.cpuSamples).toBeUndefined();
    expect(http.cpuMicrosPerPurchase).toBeUndefined();
  });

  it("gives the median of twenty rounds the 6th smallest to the 6th largest as its 95 % interval", () => {
    const rounds = Array.from({ length: 20 }, (_, i) => 1 + (i - 10) / 100).reverse(); // 0.90 … 1.09, any order
    // P(fewer than 6 of 20 below the median) = 0.0207 each side: 95.9 %; 7 would give 88.5 %.
    expect(medianInterval(rounds)).toEqual({ low: 0.95, high: 1.04, coverage: expect.closeTo(0.9586, 4) });
    expect(medianInterval([3, 1, 2])).toEqual({ low: 1, high: 3, coverage: 0.75 });
    expect(medianInterval([])).toEqual({ low: 0, high: 0, coverage: 0 });
  });

  it("never prints a figure rounded onto the aim's other side", () => {
    expect(shown(0.8996, 0.9)).toBe("0.8996");
    expect(shown(0.9004, 0.9)).toBe("0.90");
    expect(shown(0.912, 0.9)).toBe("0.91");
    expect(shown(0.3334, 1 / 3, 3, true)).toBe("0.3334");
    expect(shown(0.015, 1 / 3, 3, true)).toBe("0.015");
    // As an aim prints it: a lock at 0.8996 of the ceiling reads 0.8996 ✗, not "0.90 (aim ≥ 0.9)" ✗.
    const { table, curve } = passingRun();
    const ceiling = "serial ceiling (no lock: one buyer at a time)";
    const rounds = [
      row("in-process", `${ceiling} (ceiling rounds)`, 50, 0, { samples: [10000, 10000, 10000] }),
      row("in-process", "token-lua (ceiling rounds)", 50, 0, { samples: [8996, 8996, 8996] }),
    ];
    const [token] = find(run([...table, ...rounds], curve), "token-lua ÷ the serial ceiling", "at 50 buyers");
    expect(formatAim(token!)).toMatch(/^✗ .*: 0\.8996 \(aim ≥ 0\.9\)$/);
  });

  it("leaves out what this run did not measure instead of guessing", () => {
    const { table } = passingRun();
    const lines = run(table, []);
    expect(find(lines, "at 200 buyers")).toEqual([]);
    expect(find(lines, "kept")).toEqual([]);
    expect(find(lines, "on the curve")).toEqual([]);
    // The Redlock pair and the Mutex, all from the main table's 50 buyers.
    expect(find(lines, "at 50 buyers")).toHaveLength(3);
    expect(run([], [])).toEqual([{ ok: true, text: expect.stringContaining("no buyer of the project's locks starved") }]);
  });
});
