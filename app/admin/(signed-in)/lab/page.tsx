import Link from "next/link";
import { getLocale, getTranslations } from "next-intl/server";
import { requireAdminPage } from "@/lib/auth/guard";
import { withKeptErrorsIn } from "@/lib/http/kept-error";
import { localizeScenario } from "@/lib/lab/card-text";
import { getActiveFaults } from "@/lib/lab/fault-actions";
import { getActiveLabRunId, getLastLabRuns } from "@/lib/lab/lab-runs";
import { SCENARIOS } from "@/lib/lab/scenarios";
import { FaultsPanel } from "../faults-panel";
import { LabBoard } from "./lab-board";

export const dynamic = "force-dynamic";

export default async function LabPage() {
  // The layout already turned strangers away; this check guards the data itself (see ../layout.tsx).
  await requireAdminPage("/admin/lab");
  const [faults, activeLabRunId, lastRuns, locale, t] = await Promise.all([
    getActiveFaults(),
    getActiveLabRunId(),
    getLastLabRuns(SCENARIOS.map((scenario) => String(scenario.id))),
    getLocale(),
    getTranslations(),
  ]);
  return (
    <div className="dashboard">
      <div className="toolbar">
        <h1>{t("common.pitfallLab")}</h1>
        <Link href="/admin" className="button-link">{t("common.backToDashboard")}</Link>
      </div>
      <p className="muted">{t("lab.intro")}</p>
      <FaultsPanel initial={faults} />
      <LabBoard scenarios={SCENARIOS.map((scenario) => localizeScenario(scenario, locale))} activeLabRunId={activeLabRunId ?? null} lastRuns={Object.fromEntries(Object.entries(lastRuns).map(([id, run]) => [id, withKeptErrorsIn(run, locale)]))} />
    </div>
  );
}
