import Link from "next/link";
import { requireAdminPage } from "@/lib/auth/guard";
import { listStrategies } from "@/lib/locks/registry";
import { getExposure, qrSvg } from "@/lib/workshop/exposure";
import { getAdminLiveSnapshot } from "@/lib/workshop/live";
import { getLocale, getTranslations } from "next-intl/server";
import { messagesFor } from "@/lib/i18n/messages";
import { DocumentLanguage } from "../../../document-language";
import { LanguageProvider } from "../../../language-provider";
import { getRoom } from "../../../room-locale";
import { ProjectorView } from "./projector-view";

export const dynamic = "force-dynamic";

/**
 * The projector view of workshop mode: the join link, the drop, live stock and holders, and the
 * accounting — in the room's language (the drop's pinned one, else the instructor's own).
 */
export default async function LivePage() {
  await requireAdminPage("/admin/live");
  const [snapshot, exposure, room, personal] = await Promise.all([getAdminLiveSnapshot(), getExposure(), getRoom(), getLocale()]);
  const t = await getTranslations({ locale: room.locale });
  const joinUrl = exposure.storeUrls[0] ?? "";
  const strategies = listStrategies().map((strategy) => ({ name: strategy.name, safe: strategy.safe }));
  return (
    <LanguageProvider locale={room.locale} className="dashboard projector">
      <DocumentLanguage locale={room.locale} title={t("metadata.title")} personal={personal} personalTitle={messagesFor(personal).metadata.title} />
      <div className="toolbar">
        <h1>{t("projector.title")}</h1>
        <div>
          <Link href="/admin" className="button-link">{t("common.dashboard")}</Link>
          <Link href="/admin/lab" className="button-link">{t("common.pitfallLab")}</Link>
        </div>
      </div>
      <ProjectorView initial={snapshot} exposure={exposure} qr={joinUrl ? await qrSvg(joinUrl) : ""} strategies={strategies} pinned={room.pinned ?? null} />
    </LanguageProvider>
  );
}
