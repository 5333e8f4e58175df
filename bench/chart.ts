import { niceTicks } from "../lib/timeline/layout";
import { projectLock } from "./labels";
import type { RowResult } from "./stats";

/**
 * The contention curve drawn as one SVG document, by hand (no chart library for one picture):
 * a panel per level, buyers on a log x axis, purchases/s on the y axis, a polyline per lock, and
 * one legend under the panels. A lock keeps its colour in every panel; peers are dashed.
 */
export interface ChartPoint {
  readonly buyers: number;
  readonly perSecond: number;
}

export interface ChartSeries {
  readonly label: string;
  readonly points: readonly ChartPoint[];
  /** Drawn dashed: a peer library rather than one of the project's locks. */
  readonly dashed?: boolean;
}

export interface ChartPanel {
  readonly title: string;
  readonly series: readonly ChartSeries[];
}

export interface ChartOptions {
  readonly title: string;
  /** Width of one panel, axes included, in px. @default 480 */
  readonly panelWidth: number;
  /** Height of one panel, axes included, in px. @default 340 */
  readonly panelHeight: number;
  /** Series colours, given out in order of first appearance across the panels. @default Tableau 10 */
  readonly palette: readonly string[];
  /**
   * `log`: in-process, `atomic` sells an order of magnitude more than the locks; on a linear axis
   * from 0 the locks lie flat along the bottom and a 20 % loss under contention cannot be seen. On
   * a log axis an equal share lost is an equal drop for every lock. `linear` starts at 0.
   * @default "log"
   */
  readonly yScale: "log" | "linear";
}

export const DEFAULT_CHART_OPTIONS: ChartOptions = Object.freeze({
  title: "Lock Lab · purchases/s by concurrent buyers on one hot key",
  panelWidth: 480,
  panelHeight: 340,
  palette: Object.freeze(["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"]),
  yScale: "log",
});

/** Space around a panel's plot area, for its title, tick labels and axis labels. */
const MARGIN = Object.freeze({ top: 34, right: 30, bottom: 52, left: 70 });
/** Keeps the first and last points (and their tick labels) off the plot's edges. */
const X_INSET = 14;
const HEADING_HEIGHT = 30;
const LEGEND_ROW_HEIGHT = 20;
/** Roughly the width of one character of a 12 px sans-serif label: enough to keep legend items apart. */
const CHAR_WIDTH = 7;

/** The curve's points as panels: in-process, then HTTP, each lock a series in order of first appearance. */
export function curvePanels(points: readonly RowResult[]): ChartPanel[] {
  const levels = [
    { level: "in-process", title: "in-process (lock + Redis critical section)" },
    { level: "http", title: "over HTTP (POST /api/buy through nginx)" },
  ] as const;
  return levels.flatMap(({ level, title }) => {
    const ofLevel = points.filter((r) => r.level === level);
    const labels = [...new Set(ofLevel.map((r) => r.label))];
    const series = labels.map((label) => ({
      label,
      dashed: !projectLock(label),
      points: ofLevel.filter((r) => r.label === label).map((r) => ({ buyers: r.buyers, perSecond: r.purchasesPerSecond })),
    }));
    return series.length ? [{ title, series }] : [];
  });
}

const escapeXml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
const round = (value: number) => Math.round(value * 10) / 10;
const thousands = (value: number) => value.toLocaleString("en-US", { maximumFractionDigits: 0 });

interface YAxis {
  readonly ticks: readonly number[];
  /** Where a value sits, 0 at the bottom of the plot, 1 at the top (clamped). */
  fraction(value: number): number;
}

/** Linear from 0: round ticks up to at least `max`. */
function linearAxis(max: number): YAxis {
  const ticks = niceTicks(0, Math.max(max, 1), 5);
  const step = (ticks[1] ?? 1) - (ticks[0] ?? 0);
  while ((ticks.at(-1) ?? 0) < max) ticks.push((ticks.at(-1) ?? 0) + step);
  const top = ticks.at(-1) || 1;
  return { ticks, fraction: (value) => Math.min(1, Math.max(0, value / top)) };
}

const NICE_STEPS = [1, 2, 5, 10];

/** Log from a 1-2-5 value at or below `min` to one at or above `max`; 0 sits on the bottom edge. */
function logAxis(min: number, max: number): YAxis {
  const decade = (value: number) => 10 ** Math.floor(Math.log10(value));
  const low = Math.max(1, decade(min) * ([5, 2, 1].find((m) => m * decade(min) <= min) ?? 1));
  const high = Math.max(low * 10, decade(max) * (NICE_STEPS.find((m) => m * decade(max) >= max) ?? 10));
  // 1, 2 and 5 of each decade while they have room; only the powers of ten on a taller range.
  const steps = Math.log10(high / low) <= 2 ? [1, 2, 5] : [1];
  const ticks = new Set([low, high]);
  for (let power = decade(low); power <= high; power *= 10) {
    for (const m of steps) if (m * power >= low && m * power <= high) ticks.add(m * power);
  }
  const span = Math.log10(high / low);
  return {
    ticks: [...ticks].sort((a, b) => a - b),
    fraction: (value) => (value <= low ? 0 : Math.min(1, Math.log10(value / low) / span)),
  };
}

export function contentionChart(panels: readonly ChartPanel[], options: ChartOptions = DEFAULT_CHART_OPTIONS): string {
  const colour = new Map<string, string>();
  for (const series of panels.flatMap((panel) => panel.series)) {
    if (!colour.has(series.label)) colour.set(series.label, options.palette[colour.size % options.palette.length] ?? "#000");
  }
  const width = Math.max(1, panels.length) * options.panelWidth;
  const legendItemWidth = 44 + CHAR_WIDTH * Math.max(0, ...[...colour.keys()].map((label) => label.length));
  const perLegendRow = Math.max(1, Math.floor((width - MARGIN.left) / legendItemWidth));
  const legendTop = HEADING_HEIGHT + options.panelHeight + 8;
  const height = legendTop + Math.ceil(colour.size / perLegendRow) * LEGEND_ROW_HEIGHT + 12;

  const legend = [...colour].map(([label, stroke], i) => {
    const x = (i % perLegendRow) * legendItemWidth + MARGIN.left;
    const y = legendTop + Math.floor(i / perLegendRow) * LEGEND_ROW_HEIGHT + LEGEND_ROW_HEIGHT / 2;
    const dashed = panels.some((panel) => panel.series.some((s) => s.label === label && s.dashed));
    return `<g class="legend-item"><line x1="${x}" y1="${y}" x2="${x + 24}" y2="${y}" stroke="${stroke}" stroke-width="2.5"${dashed ? ' stroke-dasharray="6 4"' : ""}/>`
      + `<text x="${x + 30}" y="${y + 4}">${escapeXml(label)}</text></g>`;
  });

  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="${width / 2}" y="20" text-anchor="middle" font-size="15" font-weight="600">${escapeXml(options.title)}</text>`,
    ...panels.map((panel, i) => drawPanel(panel, i * options.panelWidth, HEADING_HEIGHT, options, colour)),
    ...legend,
    "</svg>",
    "",
  ].join("\n");
}

function drawPanel(panel: ChartPanel, left: number, top: number, options: ChartOptions, colour: ReadonlyMap<string, string>): string {
  const plot = {
    left: left + MARGIN.left,
    right: left + options.panelWidth - MARGIN.right,
    top: top + MARGIN.top,
    bottom: top + options.panelHeight - MARGIN.bottom,
  };
  const points = panel.series.flatMap((s) => s.points);
  const buyers = [...new Set(points.map((p) => p.buyers))].sort((a, b) => a - b);
  // Log scale: 10 → 50 → 200 → 1,000 buyers are about evenly spaced. One value alone sits mid-axis.
  const logMin = Math.log10(buyers[0] ?? 1);
  const logMax = Math.log10(buyers.at(-1) ?? 10);
  const logSpan = logMax - logMin;
  const [xFrom, xTo] = [plot.left + X_INSET, plot.right - X_INSET];
  const x = (n: number) => round(logSpan ? xFrom + ((Math.log10(n) - logMin) / logSpan) * (xTo - xFrom) : (xFrom + xTo) / 2);
  const rates = points.map((p) => p.perSecond);
  const positive = rates.filter((rate) => rate > 0);
  const axis = options.yScale === "log"
    ? logAxis(positive.length ? Math.min(...positive) : 1, Math.max(1, ...rates))
    : linearAxis(Math.max(0, ...rates));
  const ticks = axis.ticks;
  const y = (perSecond: number) => round(plot.bottom - axis.fraction(perSecond) * (plot.bottom - plot.top));

  const xAxis = buyers.map((n) =>
    `<g class="x-tick"><line x1="${x(n)}" y1="${plot.top}" x2="${x(n)}" y2="${plot.bottom}" stroke="#eee"/>`
    + `<text x="${x(n)}" y="${plot.bottom + 16}" text-anchor="middle">${thousands(n)}</text></g>`);
  const yAxis = ticks.map((tick) =>
    `<g class="y-tick"><line x1="${plot.left}" y1="${y(tick)}" x2="${plot.right}" y2="${y(tick)}" stroke="#eee"/>`
    + `<text x="${plot.left - 6}" y="${y(tick) + 4}" text-anchor="end">${thousands(tick)}</text></g>`);
  const lines = panel.series.map((series) => {
    const stroke = colour.get(series.label) ?? "#000";
    const sorted = [...series.points].sort((a, b) => a.buyers - b.buyers);
    // A log axis has no 0: a point that sold nothing is a hollow marker on the bottom edge, off the line.
    const offScale = (p: ChartPoint) => options.yScale === "log" && p.perSecond <= 0;
    const onLine = sorted.filter((p) => !offScale(p));
    const markers = sorted.map((p) =>
      `<circle cx="${x(p.buyers)}" cy="${y(p.perSecond)}" r="3" ${offScale(p) ? `fill="#fff" stroke="${stroke}"` : `fill="${stroke}"`}>`
      + `<title>${escapeXml(`${series.label} · ${thousands(p.buyers)} buyers: ${thousands(p.perSecond)} purchases/s`)}</title></circle>`);
    return [
      `<g class="series" data-label="${escapeXml(series.label)}">`,
      `<polyline fill="none" stroke="${stroke}" stroke-width="2"${series.dashed ? ' stroke-dasharray="6 4"' : ""} points="${onLine.map((p) => `${x(p.buyers)},${y(p.perSecond)}`).join(" ")}"/>`,
      ...markers,
      "</g>",
    ].join("");
  });
  const middle = (plot.top + plot.bottom) / 2;
  return [
    `<g class="panel">`,
    `<text x="${(plot.left + plot.right) / 2}" y="${top + 18}" text-anchor="middle" font-weight="600">${escapeXml(panel.title)}</text>`,
    ...xAxis,
    ...yAxis,
    `<line x1="${plot.left}" y1="${plot.bottom}" x2="${plot.right}" y2="${plot.bottom}" stroke="#333"/>`,
    `<line x1="${plot.left}" y1="${plot.top}" x2="${plot.left}" y2="${plot.bottom}" stroke="#333"/>`,
    `<text x="${(plot.left + plot.right) / 2}" y="${plot.bottom + 38}" text-anchor="middle">concurrent buyers (log scale)</text>`,
    `<text transform="translate(${left + 16} ${middle}) rotate(-90)" text-anchor="middle">purchases/s${options.yScale === "log" ? " (log scale)" : ""}</text>`,
    ...lines,
    "</g>",
  ].join("\n");
}
