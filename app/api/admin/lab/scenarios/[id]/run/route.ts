import { adminRoute } from "@/lib/auth/guard";
import type { IdRouteContext } from "@/lib/http/route-params";
import { HttpError, methodNotAllowed } from "@/lib/http/errors";
import { createLabRun } from "@/lib/lab/lab-runs";
import { launchLabRun } from "@/lib/lab/launch";
import { findScenario } from "@/lib/lab/scenarios";
import { claimDetails, getStackClaim } from "@/lib/stack/claim";

export const dynamic = "force-dynamic";

/** Run one scenario card (all its cases) in the scenario runner process; poll /api/admin/lab/runs/:id. */
export const POST = adminRoute(async (_request, { params }: IdRouteContext) => {
  const { id } = await params;
  const scenario = findScenario(id);
  if (!scenario) throw new HttpError(404, "not_found", `no scenario ${id}`);
  const labRun = await createLabRun(String(scenario.id), scenario.cases);
  if (!labRun) {
    // Whoever holds the stack, named in the details for the translated message.
    throw new HttpError(409, "lab_run_in_progress", "Another scenario or a load run is using the stack; wait for it to finish.", claimDetails(await getStackClaim()));
  }
  launchLabRun(labRun.id);
  return Response.json({ labRun }, { status: 202 });
});

export const GET = methodNotAllowed("POST");
export const PUT = methodNotAllowed("POST");
export const PATCH = methodNotAllowed("POST");
export const DELETE = methodNotAllowed("POST");
