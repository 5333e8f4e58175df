import { describe, expect, it } from "vitest";
import { DEFAULT_CHART_OPTIONS, contentionChart, curvePanels } from "@/bench/chart";
import type { RowResult } from "@/bench/stats";

function point(level: RowResult["level"], label: string, buyers: number, purchasesPerSecond: number): RowResult {
  return {
    level, label, buyers, purchasesPerSecond, windowMs: 3000, attempts: 100, bought: 100, busy: 0, soldOut: 0, errors: 0,
    starved: 0, p50: 5, p99: 20, max: 30, redisCommandsPerPurchase: 10, peakHolders: 1, lostUpdates: 0,
  };
}

const BUYERS = [10, 50, 200, 1000];
const CURVE = [
  ...BUYERS.flatMap((n) => [
    point("in-process", "token-lua", n, 4000 - n),
    point("in-process", "atomic", n, 28000),
    point("in-process", "node-redlock 5-beta (tuned retry 50±50 ms ×100)", n, 900),
  ]),
  ...BUYERS.flatMap((n) => [point("http", "token-lua", n, 400), point("http", "atomic", n, 450)]),
];

const count = (svg: string, pattern: RegExp) => svg.match(new RegExp(pattern, "g"))?.length ?? 0;

describe("the contention chart", () => {
  const panels = curvePanels(CURVE);
  const svg = contentionChart(panels);

  it("has a panel per level and a polyline per lock in each", () => {
    expect(panels.map((panel) => [panel.title.split(" ")[0], panel.series.length])).toEqual([["in-process", 3], ["over", 2]]);
    expect(svg.startsWith("<svg xmlns=\"http://www.w3.org/2000/svg\"")).toBe(true);
    expect(count(svg, /<polyline /)).toBe(5);
    expect(count(svg, /<circle /)).toBe(CURVE.length);
    // Peers dashed in the plot and in the legend, the project's locks solid.
    expect(count(svg, /stroke-dasharray/)).toBe(2);
  });

  it("ticks the x axis at every number of buyers, on a log scale", () => {
    for (const label of ["10", "50", "200", "1,000"]) expect(count(svg, new RegExp(`<text [^>]*>${label}</text></g>`))).toBeGreaterThanOrEqual(2);
    expect(svg).toContain("concurrent buyers (log scale)");
    const ticks = [...svg.matchAll(/<g class="x-tick"><line x1="([\d.]+)"/g)].slice(0, 4).map((m) => Number(m[1]));
    const [x10, x50, x200, x1000] = ticks as [number, number, number, number];
    // Equal ratios of buyers, equal distances: 10 → 1,000 spans two decades, 50 → 200 about 0.6 of one.
    expect((x1000 - x10) / (x200 - x50)).toBeCloseTo(2 / Math.log10(4), 1);
  });

  /** The first panel's y ticks: value and height, bottom to top. */
  const yTicks = (chart: string) =>
    [...chart.split('<g class="panel">')[1]!.matchAll(/<g class="y-tick"><line x1="[\d.]+" y1="([\d.]+)".*?>([\d,]+)<\/text><\/g>/g)]
      .map((m) => ({ value: Number(m[2]!.replace(/,/g, "")), y: Number(m[1]) }));

  it("puts purchases/s on a log axis of round ticks around every point: equal shares, equal heights", () => {
    const ticks = yTicks(svg);
    expect(ticks[0]!.value).toBeLessThanOrEqual(900);
    expect(ticks.at(-1)!.value).toBeGreaterThanOrEqual(28000);
    expect(ticks.map((t) => t.value)).toContain(1000);
    expect(ticks.map((t) => t.value)).toContain(10000);
    const at = (value: number) => ticks.find((t) => t.value === value)!.y;
    expect(at(1000) - at(10000)).toBeCloseTo((at(ticks[0]!.value) - at(1000)) / Math.log10(1000 / ticks[0]!.value), 0);
    expect(svg).toContain("purchases/s (log scale)");
  });

  it("draws a point that sold nothing hollow on the bottom edge, off the line, on a log axis", () => {
    const zero = contentionChart(curvePanels([point("http", "pg-for-update", 50, 200), point("http", "pg-for-update", 1000, 0)]));
    expect(zero).toMatch(/<polyline [^>]*points="[\d.]+,[\d.]+"\/>/);
    expect(count(zero, /fill="#fff" stroke=/)).toBe(1);
  });

  it("starts a linear axis at 0 and ends it at a round tick above the highest point", () => {
    const ticks = yTicks(contentionChart(panels, { ...DEFAULT_CHART_OPTIONS, yScale: "linear" })).map((t) => t.value);
    expect(ticks[0]).toBe(0);
    expect(ticks.at(-1)).toBeGreaterThanOrEqual(28000);
    expect(ticks.at(-1)! - ticks.at(-2)!).toBe(ticks[1]);
  });

  it("gives a lock one colour and one legend entry across panels, and escapes labels", () => {
    expect(count(svg, /class="legend-item"/)).toBe(3);
    const colours = [...svg.matchAll(/data-label="token-lua"><polyline fill="none" stroke="(#[0-9a-f]+)"/g)].map((m) => m[1]);
    expect(colours).toHaveLength(2);
    expect(new Set(colours).size).toBe(1);
    const odd = contentionChart(curvePanels([point("in-process", "a<b & \"c\"", 10, 1), point("in-process", "a<b & \"c\"", 100, 2)]));
    expect(odd).toContain("a&lt;b &amp; &quot;c&quot;");
    expect(odd).not.toContain("a<b");
  });
});
