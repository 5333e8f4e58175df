import { requireAdminPage } from "@/lib/auth/guard";
import { listStrategies } from "@/lib/locks/registry";
import { getActiveRunId, listRuns } from "@/lib/runs/runs";
import { getConfig } from "@/lib/sale/config";
import { getSaleStats } from "@/lib/sale/sale";
import { getActiveFaults } from "@/lib/lab/fault-actions";
import { Dashboard } from "./dashboard";
import { FaultsPanel } from "./faults-panel";

export const dynamic = "force-dynamic";

export default async function AdminPage() {
  await requireAdminPage("/admin");
  const [config, sale, runs, activeRunId, faults] = await Promise.all([
    getConfig(),
    getSaleStats(),
    listRuns(),
    getActiveRunId(),
    getActiveFaults(),
  ]);
  const strategies = listStrategies().map((strategy) => ({ name: strategy.name, safe: strategy.safe, lab: Boolean(strategy.lab) }));
  return (
    <Dashboard
      initialConfig={config}
      initialSale={sale}
      initialRuns={runs}
      activeRunId={activeRunId ?? null}
      strategies={strategies}
      faultsPanel={<FaultsPanel initial={faults} />}
    />
  );
}
