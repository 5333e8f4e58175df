import { adminRoute } from "@/lib/auth/guard";
import { methodNotAllowed } from "@/lib/http/errors";
import { getActiveFaults } from "@/lib/lab/fault-actions";
import { getActiveLabRunId } from "@/lib/lab/lab-runs";
import { SCENARIOS } from "@/lib/lab/scenarios";

export const dynamic = "force-dynamic";

/** The scenario ladder (as data), the lab run in progress, and the faults in force. */
export const GET = adminRoute(async () => {
  const [activeLabRunId, faults] = await Promise.all([getActiveLabRunId(), getActiveFaults()]);
  return Response.json({ scenarios: SCENARIOS, activeLabRunId: activeLabRunId ?? null, faults });
});

export const POST = methodNotAllowed("GET");
export const PUT = methodNotAllowed("GET");
export const PATCH = methodNotAllowed("GET");
export const DELETE = methodNotAllowed("GET");
