import Link from "next/link";
import { notFound } from "next/navigation";
import { getFormatter, getTranslations } from "next-intl/server";
import { requireAdminPage } from "@/lib/auth/guard";
import { RunNotFoundError } from "@/lib/runs/errors";
import { getRun, type RunRecord } from "@/lib/runs/runs";
import { TimelineChart } from "../../charts";
import { RunsTable, signed } from "../../runs-table";

export const dynamic = "force-dynamic";

type Translate = Awaited<ReturnType<typeof getTranslations<"runPage">>>;
type Format = Awaited<ReturnType<typeof getFormatter>>;

export default async function RunPage(props: { params: Promise<{ id: string }> }) {
  const { id } = await props.params;
  // The layout already turned strangers away; this check guards the data itself (see ../../layout.tsx).
  await requireAdminPage(`/admin/runs/${id}`);
  if (!/^\d{1,9}$/.test(id)) notFound();
  const run = await getRun(Number(id)).catch((error) => {
    if (error instanceof RunNotFoundError) notFound();
    throw error;
  });
  const [t, tc, format] = await Promise.all([getTranslations("runPage"), getTranslations("common"), getFormatter()]);
  const bound = run.totalRequests ? t("boundRequests", { count: run.totalRequests }) : t("boundSeconds", { seconds: (run.durationMs ?? 0) / 1000 });
  return (
    <div className="dashboard">
      <div className="toolbar">
        <h1>{t("title", { id: String(run.id) })} <span className="strategy-badge">{run.strategy}</span> {run.verdict && <span className={`verdict ${run.verdict}`}>{run.verdict}</span>}</h1>
        <div>
          <a href={`/api/admin/runs/${run.id}/export`} className="button-link" download>{tc("exportJson")}</a>
          <Link href="/admin" className="button-link">{tc("backToDashboard")}</Link>
          <Link href={`/admin/sales/${run.saleId}/timeline`} className="button-link" data-testid="timeline-link">{tc("holderTimeline")}</Link>
        </div>
      </div>
      <section className="card">
        <p className="muted">
          {t("settings", {
            tool: run.tool, vus: run.vus, bound, ttl: run.knobs.lockTtlMs, wait: run.knobs.waitTimeoutMs, work: run.knobs.workMs,
            startedAt: format.dateTime(new Date(run.startedAt), { dateStyle: "medium", timeStyle: "medium" }),
          })}
        </p>
        <p data-testid="run-accounting">{accountingSummary(run, t, format)}</p>
        <RunsTable runs={[run]} />
      </section>
      <section className="card">
        {run.timeline.length ? <TimelineChart points={run.timeline} initialStock={run.initialStock} /> : <p className="empty">{t("noTimeline")}</p>}
      </section>
    </div>
  );
}

/** The verdict in words: which units the run got wrong, counted per unit. */
function accountingSummary(run: RunRecord, t: Translate, format: Format): string {
  if (run.doubleSold === null || run.lostUnits === null || run.phantomUnits === null) {
    // Runs recorded before the per-unit accounting, or failed before they could be counted.
    return t("notCounted");
  }
  const sold = t("sold", { orders: run.orders ?? 0, units: run.initialStock, oversell: signed(run.oversell) });
  const pending = run.pendingUnits ? t("pending", { count: run.pendingUnits }) : "";
  const wrong = [
    run.doubleSold ? (run.outOfRange ? t("outOfRange", { count: run.doubleSold, outOfRange: run.outOfRange }) : t("doubleSold", { count: run.doubleSold })) : "",
    run.lostUnits ? t("lost", { count: run.lostUnits }) : "",
    run.phantomUnits ? t("phantom", { count: run.phantomUnits }) : "",
  ].filter(Boolean);
  return wrong.length ? t("wrong", { sold, wrong: format.list(wrong, { type: "conjunction" }), pending }) : t("clean", { sold, pending });
}
