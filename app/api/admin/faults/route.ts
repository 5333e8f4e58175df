import { after } from "next/server";
import { adminRoute } from "@/lib/auth/guard";
import { methodNotAllowed } from "@/lib/http/errors";
import { readJsonBody } from "@/lib/http/read-json";
import { applyFaultAction, getActiveFaults, targetsThisInstance } from "@/lib/lab/fault-actions";
import { faultActionSchema } from "@/lib/lab/fault-action";

export const dynamic = "force-dynamic";

/** Every fault in force: delays, stopped Redis nodes, paused or stopped app instances. */
export const GET = adminRoute(async () => {
  return Response.json({ faults: await getActiveFaults() }, { headers: { "cache-control": "no-store" } });
});

/** Inject or undo one fault. Pausing or killing the instance answering this call happens after the answer. */
export const POST = adminRoute(async (request) => {
  const action = faultActionSchema.parse(await readJsonBody(request));
  if (targetsThisInstance(action)) {
    after(() => applyFaultAction(action).catch(() => {}));
    return Response.json({ accepted: action }, { status: 202 });
  }
  await applyFaultAction(action);
  return Response.json({ faults: await getActiveFaults() });
});

export const PUT = methodNotAllowed("GET, POST");
export const PATCH = methodNotAllowed("GET, POST");
export const DELETE = methodNotAllowed("GET, POST");
