"use client";

import { useTranslations } from "next-intl";
import { useMemo } from "react";
import { aggregateByStrategy } from "@/lib/runs/aggregate";
import { DoubleSoldChart, OversellChart, PerformanceChart } from "../charts";
import { RunsTable } from "../runs-table";
import { useRuns } from "./run-state";

/** The run history: charts per strategy, then the exact numbers. Refreshed when a run ends. */
export function RunsSection() {
  const t = useTranslations("runs");
  const { runs } = useRuns();
  const aggregates = useMemo(() => aggregateByStrategy(runs), [runs]);
  return (
    <section className="card">
      <div className="toolbar">
        <h2>{t("title")}</h2>
        {/* A file download from the API, not a page: a plain link, not next/link. */}
        <a href="/api/admin/runs/export" className="button-link" download>{t("export")}</a>
      </div>
      {runs.length === 0 ? (
        <p className="empty">{t("empty")}</p>
      ) : (
        <>
          <div className="charts">
            <OversellChart data={aggregates} />
            <DoubleSoldChart data={aggregates} />
            <PerformanceChart data={aggregates} />
          </div>
          <RunsTable runs={runs} />
        </>
      )}
    </section>
  );
}
