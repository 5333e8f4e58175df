"use client";

import { useMemo } from "react";
import { DoubleSoldChart, OversellChart, PerformanceChart, aggregateByStrategy } from "../charts";
import { RunsTable } from "../runs-table";
import { useRuns } from "./run-state";

/** The run history: charts per strategy, then the exact numbers. Refreshed when a run ends. */
export function RunsSection() {
  const { runs } = useRuns();
  const aggregates = useMemo(() => aggregateByStrategy(runs), [runs]);
  return (
    <section className="card">
      <div className="toolbar">
        <h2>Runs</h2>
        {/* A file download from the API, not a page: a plain link, not next/link. */}
        <a href="/api/admin/runs/export" className="button-link" download>Export history (CSV)</a>
      </div>
      {runs.length === 0 ? (
        <p className="empty">No runs yet — start one above.</p>
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
