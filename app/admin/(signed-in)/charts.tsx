"use client";

import { useTranslations } from "next-intl";
import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { StrategyAggregate } from "@/lib/runs/aggregate";
import type { TimelinePoint } from "@/lib/runs/runs";

/**
 * Every strategy's bar is named under it: by default recharts drops labels that would overlap, and
 * with a dozen strategies run a bar went unnamed (slanted, they all fit).
 */
const STRATEGY_AXIS = { dataKey: "strategy", interval: 0, angle: -30, textAnchor: "end", height: 78, tick: { fontSize: 11 } } as const;

/** An axis' title, with its unit: every axis says what it counts. */
const yTitle = (value: string, side: "left" | "right" = "left") =>
  ({ value, angle: side === "left" ? -90 : 90, position: side === "left" ? "insideLeft" : "insideRight", style: { textAnchor: "middle", fill: "#495057", fontSize: 12 } }) as const;
const xTitle = (value: string) => ({ value, position: "insideBottom", offset: 0, style: { fill: "#495057", fontSize: 12 } }) as const;
/** Every series is named in a legend, in ink: a pale bar's own colour would be unreadable as text. */
const LEGEND = {
  verticalAlign: "top", height: 28, wrapperStyle: { fontSize: 12 },
  formatter: (value: string) => <span style={{ color: "#343a40" }}>{value}</span>,
} as const;

export function OversellChart({ data }: { data: StrategyAggregate[] }) {
  const t = useTranslations("charts");
  return (
    <div className="chart" data-testid="oversell-chart">
      <h3>{t("oversellTitle")} <span className="muted">{t("oversoldHint")}</span></h3>
      <ResponsiveContainer width="100%" height={290}>
        <BarChart data={data} margin={{ top: 8, right: 16, bottom: 8, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis {...STRATEGY_AXIS} label={xTitle(t("strategyAxis"))} />
          <YAxis allowDecimals={false} label={yTitle(t("unitsAxis"))} />
          <Tooltip formatter={(value, name, item) => [t("withRuns", { value: String(value), runs: (item.payload as StrategyAggregate).runs }), name]} />
          <Legend {...LEGEND} />
          <Bar dataKey="oversold" name={t("meanOverRuns")} fill="#c92a2a" isAnimationActive={false} />
          <Bar dataKey="maxOversold" name={t("worstRun")} fill="#ffa8a8" isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}

export function DoubleSoldChart({ data }: { data: StrategyAggregate[] }) {
  const t = useTranslations("charts");
  return (
    <div className="chart" data-testid="double-sold-chart">
      <h3>{t("doubleSoldTitle")} <span className="muted">{t("meanHint")}</span></h3>
      <ResponsiveContainer width="100%" height={290}>
        <BarChart data={data} margin={{ top: 8, right: 16, bottom: 8, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis {...STRATEGY_AXIS} label={xTitle(t("strategyAxis"))} />
          <YAxis allowDecimals={false} label={yTitle(t("unitsAxis"))} />
          <Tooltip
            formatter={(value, name, item) => [
              value === null || value === undefined ? t("notCounted") : t("withRuns", { value: String(value), runs: (item.payload as StrategyAggregate).doubleSoldRuns }),
              name,
            ]}
          />
          <Legend {...LEGEND} />
          <Bar dataKey="doubleSold" name={t("meanOverRuns")} fill="#862e9c" isAnimationActive={false} />
          <Bar dataKey="maxDoubleSold" name={t("worstRun")} fill="#e599f7" isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}

export function PerformanceChart({ data }: { data: StrategyAggregate[] }) {
  const t = useTranslations("charts");
  return (
    <div className="chart" data-testid="performance-chart">
      <h3>{t("performanceTitle")} <span className="muted">{t("meanHint")}</span></h3>
      <ResponsiveContainer width="100%" height={290}>
        <BarChart data={data} margin={{ top: 8, right: 8, bottom: 8, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis {...STRATEGY_AXIS} label={xTitle(t("strategyAxis"))} />
          <YAxis yAxisId="rps" orientation="left" label={yTitle(t("requestsPerSecond"))} />
          <YAxis yAxisId="ms" orientation="right" label={yTitle(t("p95"), "right")} />
          <Tooltip />
          <Legend {...LEGEND} />
          <Bar yAxisId="rps" dataKey="throughput" name={t("requestsPerSecondLeft")} fill="#364fc7" isAnimationActive={false} />
          <Bar yAxisId="ms" dataKey="p95Ms" name={t("p95Right")} fill="#f08c00" isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}

/**
 * The run's stock and sales over its own time. Samples come with the load tool's progress reports
 * (about one a second) plus the run's start and end, so a sub-second run is still a line: points
 * marked, drawn as steps (nothing is known between two samples).
 */
export function TimelineChart({ points, initialStock }: { points: TimelinePoint[]; initialStock: number }) {
  const t = useTranslations("charts");
  const span = points.length ? points[points.length - 1]!.tMs : 0;
  // Under 10 s the axis is in tenths of a second; a short run's points do not all land on 0 s.
  const digits = span < 10_000 ? 2 : 1;
  const data = points.map((point) => ({ ...point, t: Number((point.tMs / 1000).toFixed(digits)) }));
  return (
    <div className="chart" data-testid="timeline-chart">
      <h3>{t("timelineTitle")}</h3>
      <ResponsiveContainer width="100%" height={300}>
        <LineChart data={data} margin={{ top: 8, right: 16, bottom: 16, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis dataKey="t" type="number" domain={[0, "dataMax"]} unit=" s" label={xTitle(t("timeAxis"))} height={44} />
          <YAxis domain={[0, (max: number) => Math.max(max, initialStock)]} label={yTitle(t("countAxis"))} />
          <Tooltip />
          <Legend {...LEGEND} />
          <Line type="stepAfter" dataKey="stock" name={t("stockInRedis")} stroke="#2b8a3e" dot={{ r: 3 }} isAnimationActive={false} />
          <Line type="stepAfter" dataKey="orders" name={t("ordersRecorded")} stroke="#c92a2a" dot={{ r: 3 }} isAnimationActive={false} />
          <Line type="stepAfter" dataKey="busy" name={t("busyAnswers")} stroke="#f08c00" dot={{ r: 3 }} isAnimationActive={false} />
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}
