import { UNSAFE } from "./labels";
import type { RowResult } from "./stats";

/** The benchmark's figures as Markdown tables, ready to paste into docs/benchmarks.md. */

const fixed = (value: number, digits = 0) => value.toFixed(digits);
const percent = (part: number, whole: number) => (whole ? `${((100 * part) / whole).toFixed(1)} %` : "–");

function markdown(header: readonly string[], leftColumns: number, rows: readonly (readonly string[])[]): string {
  return [
    `| ${header.join(" | ")} |`,
    `|${header.map((_, i) => (i < leftColumns ? "---" : "--:")).join("|")}|`,
    ...rows.map((cells) => `| ${cells.join(" | ")} |`),
  ].join("\n");
}

export function table(results: readonly RowResult[]): string {
  const header = [
    "level", "lock", "purchases/s", "p50 ms", "p99 ms", "max ms", "busy", "errors", "starved",
    "Redis cmds/purchase", "peak holders", "lost updates",
  ];
  // Rows measured at another number of buyers than the table's (the ceiling rounds at 200) say so.
  const buyers = results[0]?.buyers;
  return markdown(header, 2, results.map((r) => [
    r.level, `${UNSAFE.has(r.label) ? `${r.label} (unsafe)` : r.label}${r.buyers !== buyers ? ` at ${r.buyers} buyers` : ""}`, fixed(r.purchasesPerSecond), fixed(r.p50, 1), fixed(r.p99, 1), fixed(r.max, 0),
    percent(r.busy, r.attempts), String(r.errors), String(r.starved),
    fixed(r.redisCommandsPerPurchase, 1), String(r.peakHolders), String(r.lostUpdates),
  ]));
}

/**
 * The contention curve: one line per lock and level, one column per number of buyers, each cell
 * purchases/s · p50 · p99 (ms), then whatever went wrong there: busy share, errors, starved buyers.
 */
export function curveTable(points: readonly RowResult[]): string {
  const buyers = [...new Set(points.map((r) => r.buyers))].sort((a, b) => a - b);
  const series = [...new Map(points.map((r) => [`${r.level}\n${r.label}`, r])).values()];
  const cell = (r: RowResult | undefined) => {
    if (!r) return "–";
    const trouble = [
      r.busy ? `busy ${percent(r.busy, r.attempts)}` : "",
      r.errors ? `${r.errors} errors` : "",
      r.starved ? `**${r.starved} starved**` : "",
    ].filter(Boolean);
    return [`${fixed(r.purchasesPerSecond)}/s · ${fixed(r.p50, 1)} · ${fixed(r.p99, 1)}`, ...trouble].join(" · ");
  };
  return markdown(
    ["level", "lock", ...buyers.map((n) => `${n} buyers`)],
    2,
    series.map(({ level, label }) => [level, label, ...buyers.map((n) => cell(points.find((r) => r.level === level && r.label === label && r.buyers === n)))]),
  );
}
