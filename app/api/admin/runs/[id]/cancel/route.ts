import { adminRoute } from "@/lib/auth/guard";
import { methodNotAllowed } from "@/lib/http/errors";
import { runIdFrom, type IdRouteContext } from "@/lib/http/route-params";
import { failRun, getRun } from "@/lib/runs/runs";

export const dynamic = "force-dynamic";

/** Stop waiting for a run whose load tool died: it is marked failed with the invariants so far. */
export const POST = adminRoute(async (_request, { params }: IdRouteContext) => {
  const id = await runIdFrom(params);
  await failRun(id, "cancelled by the instructor");
  return Response.json({ run: await getRun(id) });
});

export const GET = methodNotAllowed("POST");
export const PUT = methodNotAllowed("POST");
export const PATCH = methodNotAllowed("POST");
export const DELETE = methodNotAllowed("POST");
