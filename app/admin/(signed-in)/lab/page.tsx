import Link from "next/link";
import { requireAdminPage } from "@/lib/auth/guard";
import { getActiveFaults } from "@/lib/lab/fault-actions";
import { getActiveLabRunId, getLastLabRuns } from "@/lib/lab/lab-runs";
import { SCENARIOS } from "@/lib/lab/scenarios";
import { FaultsPanel } from "../faults-panel";
import { LabBoard } from "./lab-board";

export const dynamic = "force-dynamic";

export default async function LabPage() {
  // The layout already turned strangers away; this check guards the data itself (see ../layout.tsx).
  await requireAdminPage("/admin/lab");
  const [faults, activeLabRunId, lastRuns] = await Promise.all([
    getActiveFaults(),
    getActiveLabRunId(),
    getLastLabRuns(SCENARIOS.map((scenario) => String(scenario.id))),
  ]);
  return (
    <div className="dashboard">
      <div className="toolbar">
        <h1>Pitfall lab</h1>
        <Link href="/admin" className="button-link">Back to dashboard</Link>
      </div>
      <p className="muted">
        The lesson as a ladder. For each card, read what is tried, let the class predict, then press Run: the lab applies the
        settings and faults, drives buyers through the real stack, and shows what happened next to the prediction.
      </p>
      <FaultsPanel initial={faults} />
      <LabBoard scenarios={SCENARIOS} activeLabRunId={activeLabRunId ?? null} lastRuns={lastRuns} />
    </div>
  );
}
