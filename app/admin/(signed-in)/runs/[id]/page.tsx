import Link from "next/link";
import { notFound } from "next/navigation";
import { requireAdminPage } from "@/lib/auth/guard";
import { RunNotFoundError } from "@/lib/runs/errors";
import { getRun, type RunRecord } from "@/lib/runs/runs";
import { TimelineChart } from "../../charts";
import { RunsTable, signed } from "../../runs-table";

export const dynamic = "force-dynamic";

export default async function RunPage(props: { params: Promise<{ id: string }> }) {
  const { id } = await props.params;
  // The layout already turned strangers away; this check guards the data itself (see ../../layout.tsx).
  await requireAdminPage(`/admin/runs/${id}`);
  if (!/^\d{1,9}$/.test(id)) notFound();
  const run = await getRun(Number(id)).catch((error) => {
    if (error instanceof RunNotFoundError) notFound();
    throw error;
  });
  return (
    <div className="dashboard">
      <div className="toolbar">
        <h1>Run #{run.id} — <span className="strategy-badge">{run.strategy}</span> {run.verdict && <span className={`verdict ${run.verdict}`}>{run.verdict}</span>}</h1>
        <div>
          <a href={`/api/admin/runs/${run.id}/export`} className="button-link" download>Export JSON</a>
          <Link href="/admin" className="button-link">Back to dashboard</Link>
          <Link href={`/admin/sales/${run.saleId}/timeline`} className="button-link" data-testid="timeline-link">Holder timeline</Link>
        </div>
      </div>
      <section className="card">
        <p className="muted">
          {run.tool} driver, {run.vus} VUs, {run.totalRequests ? `${run.totalRequests} requests` : `${(run.durationMs ?? 0) / 1000} s`};
          TTL {run.knobs.lockTtlMs} ms, wait {run.knobs.waitTimeoutMs} ms, work {run.knobs.workMs} ms; started {new Date(run.startedAt).toLocaleString("en-GB")}.
        </p>
        <p data-testid="run-accounting">{accountingSummary(run)}</p>
        <RunsTable runs={[run]} />
      </section>
      <section className="card">
        {run.timeline.length ? <TimelineChart points={run.timeline} initialStock={run.initialStock} /> : <p className="empty">No timeline recorded for this run.</p>}
      </section>
    </div>
  );
}

/** The verdict in words: which units the run got wrong, counted per unit. */
function accountingSummary(run: RunRecord): string {
  if (run.doubleSold === null || run.lostUnits === null || run.phantomUnits === null) {
    // Runs recorded before the per-unit accounting, or failed before they could be counted.
    return "Units were not counted for this run: sold twice, lost and phantom units are unknown.";
  }
  const sold = `${run.orders ?? 0} orders for ${run.initialStock} units (oversell ${signed(run.oversell)})`;
  const pending = run.pendingUnits ? `; ${run.pendingUnits} units still pending` : "";
  const wrong = [
    run.doubleSold && `${run.doubleSold} sold twice${run.outOfRange ? ` (${run.outOfRange} of them orders for units that never existed)` : ""}`,
    run.lostUnits && `${run.lostUnits} lost`,
    run.phantomUnits && `${run.phantomUnits} phantom`,
  ].filter(Boolean);
  return wrong.length
    ? `${sold}: ${wrong.join(", ")}${pending}.`
    : `${sold}: every unit sold at most once, none lost, none back on the shelf${pending}.`;
}
