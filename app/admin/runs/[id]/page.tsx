import Link from "next/link";
import { notFound } from "next/navigation";
import { requireAdminPage } from "@/lib/auth/guard";
import { RunNotFoundError } from "@/lib/runs/errors";
import { getRun } from "@/lib/runs/runs";
import { TimelineChart } from "../../charts";
import { RunsTable } from "../../runs-table";

export const dynamic = "force-dynamic";

export default async function RunPage(props: { params: Promise<{ id: string }> }) {
  const { id } = await props.params;
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
        </div>
      </div>
      <section className="card">
        <p className="muted">
          {run.tool} driver, {run.vus} VUs, {run.totalRequests ? `${run.totalRequests} requests` : `${(run.durationMs ?? 0) / 1000} s`};
          TTL {run.knobs.lockTtlMs} ms, wait {run.knobs.waitTimeoutMs} ms, work {run.knobs.workMs} ms; started {new Date(run.startedAt).toLocaleString("en-GB")}.
        </p>
        <RunsTable runs={[run]} />
      </section>
      <section className="card">
        {run.timeline.length ? <TimelineChart points={run.timeline} initialStock={run.initialStock} /> : <p className="empty">No timeline recorded for this run.</p>}
      </section>
    </div>
  );
}
