import Link from "next/link";
import { getTranslations } from "next-intl/server";
import { requireAdminPage } from "@/lib/auth/guard";
import { getActiveFaults } from "@/lib/lab/fault-actions";
import { listStrategies } from "@/lib/locks/registry";
import { getActiveRunId, listRuns } from "@/lib/runs/runs";
import { getConfig } from "@/lib/sale/config";
import { getSaleStats } from "@/lib/sale/sale";
import { FaultsPanel } from "./faults-panel";
import { ControlForm } from "./_dashboard/control-form";
import { LiveRunProgress } from "./_dashboard/run-progress";
import { RunProvider } from "./_dashboard/run-state";
import { RunsSection } from "./_dashboard/runs-section";
import { LiveSaleCard, SaleProvider } from "./_dashboard/sale-state";
import { SignOutButton } from "./_dashboard/sign-out-button";
import type { StrategyOption } from "./_dashboard/strategy-picker";

export const dynamic = "force-dynamic";

/**
 * The admin dashboard: a server page that reads everything once and lays out small client
 * islands. The two providers hold what several islands share, each polled once: the sale's
 * figures (SaleProvider) and the runs (RunProvider).
 */
export default async function AdminPage() {
  // The layout already turned strangers away; this check guards the data itself (see layout.tsx).
  await requireAdminPage("/admin");
  const [config, sale, runs, activeRunId, faults] = await Promise.all([
    getConfig(),
    getSaleStats(),
    listRuns(),
    getActiveRunId(),
    getActiveFaults(),
  ]);
  const t = await getTranslations();
  const strategies: StrategyOption[] = listStrategies().map((strategy) => ({
    name: strategy.name,
    safe: strategy.safe,
    lab: Boolean(strategy.lab),
    localLine: strategy.localLine,
  }));
  return (
    <SaleProvider initialSale={sale}>
      <RunProvider initialRuns={runs} activeRunId={activeRunId ?? null}>
        <div className="dashboard">
          <div className="toolbar">
            <h1>{t("dashboard.title")}</h1>
            <div>
              <Link href="/admin/live" className="button-link">{t("dashboard.workshop")}</Link>
              <Link href="/admin/lab" className="button-link">{t("common.pitfallLab")}</Link>
              <SignOutButton />
            </div>
          </div>
          <FaultsPanel initial={faults} />
          {/* The first screen is the job: the sale's figures and verdict beside the strategy, its knobs and the run's start. */}
          <div className="dashboard-top">
            <LiveSaleCard />
            <ControlForm strategies={strategies} initialConfig={config} />
          </div>
          <LiveRunProgress />
          <RunsSection />
        </div>
      </RunProvider>
    </SaleProvider>
  );
}
