import { requireAdminPage } from "@/lib/auth/guard";
import { listStrategies } from "@/lib/locks/registry";
import { getActiveRunId, listRuns } from "@/lib/runs/runs";
import { getConfig } from "@/lib/sale/config";
import { getSaleStats } from "@/lib/sale/sale";
import { Dashboard } from "./dashboard";

export const dynamic = "force-dynamic";

export default async function AdminPage() {
  await requireAdminPage("/admin");
  const [config, sale, runs, activeRunId] = await Promise.all([getConfig(), getSaleStats(), listRuns(), getActiveRunId()]);
  const strategies = listStrategies().map((strategy) => ({ name: strategy.name, safe: strategy.safe }));
  return <Dashboard initialConfig={config} initialSale={sale} initialRuns={runs} activeRunId={activeRunId ?? null} strategies={strategies} />;
}
