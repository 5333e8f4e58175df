"use client";

import { useTranslations } from "next-intl";
import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { StrategyAggregate } from "@/lib/runs/aggregate";
import type { TimelinePoint } from "@/lib/runs/runs";

/**
 * Every strategy's bar is named under it: by default recharts drops labels that would overlap, and
 * with a dozen strategies run a bar went unnamed (slanted, they all fit).
 */
const STRATEGY_AXIS = { dataKey: "strategy", interval: 0, angle: -30, textAnchor: "end", height: 64, tick: { fontSize: 11 } } as const;

export function OversellChart({ data }: { data: StrategyAggregate[] }) {
  const t = useTranslations("charts");
  return (
    <div className="chart" data-testid="oversell-chart">
      <h3>{t("oversellTitle")} <span className="muted">{t("oversoldHint")}</span></h3>
      <ResponsiveContainer width="100%" height={240}>
        <BarChart data={data} margin={{ top: 8, right: 16, bottom: 8, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis {...STRATEGY_AXIS} />
          <YAxis allowDecimals={false} />
          <Tooltip formatter={(value, name, item) => [t("withRuns", { value: String(value), runs: (item.payload as StrategyAggregate).runs }), name]} />
          <Bar dataKey="oversold" name={t("oversellUnits")} fill="#c92a2a" isAnimationActive={false} />
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
      <ResponsiveContainer width="100%" height={240}>
        <BarChart data={data} margin={{ top: 8, right: 16, bottom: 8, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis {...STRATEGY_AXIS} />
          <YAxis allowDecimals={false} />
          <Tooltip
            formatter={(value, name, item) => [
              value === null || value === undefined ? t("notCounted") : t("withRuns", { value: String(value), runs: (item.payload as StrategyAggregate).doubleSoldRuns }),
              name,
            ]}
          />
          <Bar dataKey="doubleSold" name={t("soldTwiceUnits")} fill="#862e9c" isAnimationActive={false} />
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
      <h3>{t("performanceTitle")}</h3>
      <ResponsiveContainer width="100%" height={240}>
        <BarChart data={data} margin={{ top: 8, right: 16, bottom: 8, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis {...STRATEGY_AXIS} />
          <YAxis yAxisId="rps" orientation="left" />
          <YAxis yAxisId="ms" orientation="right" />
          <Tooltip />
          <Legend />
          <Bar yAxisId="rps" dataKey="throughput" name={t("requestsPerSecond")} fill="#364fc7" isAnimationActive={false} />
          <Bar yAxisId="ms" dataKey="p95Ms" name={t("p95")} fill="#f08c00" isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}

export function TimelineChart({ points, initialStock }: { points: TimelinePoint[]; initialStock: number }) {
  const t = useTranslations("charts");
  const data = points.map((point) => ({ ...point, t: Math.round(point.tMs / 100) / 10 }));
  return (
    <div className="chart" data-testid="timeline-chart">
      <h3>{t("timelineTitle")}</h3>
      <ResponsiveContainer width="100%" height={280}>
        <LineChart data={data} margin={{ top: 8, right: 16, bottom: 8, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis dataKey="t" unit="s" />
          <YAxis domain={[0, (max: number) => Math.max(max, initialStock)]} />
          <Tooltip />
          <Legend />
          <Line dataKey="stock" name={t("stockInRedis")} stroke="#2b8a3e" dot={false} isAnimationActive={false} />
          <Line dataKey="orders" name={t("ordersRecorded")} stroke="#c92a2a" dot={false} isAnimationActive={false} />
          <Line dataKey="busy" name={t("busyAnswers")} stroke="#f08c00" dot={false} isAnimationActive={false} />
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}
