import Link from "next/link";
import { notFound } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { requireAdminPage } from "@/lib/auth/guard";
import { getTimeline } from "@/lib/timeline/store";
import { getBuyerNames } from "@/lib/workshop/buyers";
import { HolderTimeline } from "./holder-timeline";
import { StrategyBadges } from "../../../sale-strategy";

export const dynamic = "force-dynamic";

/** Kleppmann's lock diagram, drawn from what a run or lab case really did. */
export default async function TimelinePage(props: { params: Promise<{ id: string }> }) {
  const { id } = await props.params;
  // The layout already turned strangers away; this check guards the data itself.
  await requireAdminPage(`/admin/sales/${id}/timeline`);
  if (!/^\d{1,9}$/.test(id)) notFound();
  const view = await getTimeline(Number(id), getBuyerNames);
  if (!view) notFound();
  const t = await getTranslations();
  return (
    <div className="dashboard timeline-page">
      <div className="toolbar">
        <h1>
          {t("timeline.title", { id: String(view.saleId) })}{" "}
          {/* The strategies its orders were made under, when the strategy was switched mid-sale. */}
          <StrategyBadges names={view.strategies ?? [view.strategy]} />
        </h1>
        <div>
          <Link href="/admin/lab" className="button-link">{t("common.pitfallLab")}</Link>
          <Link href="/admin" className="button-link">{t("common.dashboard")}</Link>
        </div>
      </div>
      <section className="card">
        <HolderTimeline initial={view} />
      </section>
    </div>
  );
}
