"use client";

import { useState } from "react";
import { send } from "./api";
import { useRuns } from "./run-state";
import { RunProgressPanel } from "./sale-figures";

/** The run in progress (or the last one), with its Cancel button. */
export function LiveRunProgress() {
  const { activeRun, showRun } = useRuns();
  const [cancelling, setCancelling] = useState(false);
  if (!activeRun) return null;

  async function cancel(id: number) {
    setCancelling(true);
    try {
      const result = await send("POST", `/api/admin/runs/${id}/cancel`);
      if (result.ok) showRun(result.body.run);
    } catch {
      // The poll shows the run's state either way; the button comes back to try again.
    } finally {
      setCancelling(false);
    }
  }

  return <RunProgressPanel run={activeRun} cancelling={cancelling} onCancel={() => cancel(activeRun.id)} />;
}
