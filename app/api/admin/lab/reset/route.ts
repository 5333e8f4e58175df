import { adminRoute } from "@/lib/auth/guard";
import { HttpError, methodNotAllowed } from "@/lib/http/errors";
import { getActiveFaults } from "@/lib/lab/fault-actions";
import { getActiveLabRunId } from "@/lib/lab/lab-runs";
import { resetLab } from "@/lib/lab/runner";
import { whileStackFree } from "@/lib/runs/runs";
import { claimDetails } from "@/lib/stack/claim";

export const dynamic = "force-dynamic";

/** Put everything back: strategy and knobs to defaults, delays cleared, nodes started, instances resumed. */
export const POST = adminRoute(async () => {
  const running = await getActiveLabRunId();
  if (running) {
    throw new HttpError(409, "lab_run_in_progress", `Lab run ${running} is still going; it resets everything when it ends.`, claimDetails({ kind: "lab", id: running }));
  }
  // A load run's record is of one strategy: "Reset everything" (the strategy back to its default, the
  // held lock deleted) waits for it too.
  await whileStackFree(() => resetLab());
  return Response.json({ faults: await getActiveFaults() });
});

export const GET = methodNotAllowed("POST");
export const PUT = methodNotAllowed("POST");
export const PATCH = methodNotAllowed("POST");
export const DELETE = methodNotAllowed("POST");
