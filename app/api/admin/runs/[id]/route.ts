import { adminRoute } from "@/lib/auth/guard";
import { methodNotAllowed } from "@/lib/http/errors";
import { runIdFrom, type IdRouteContext } from "@/lib/http/route-params";
import { getRun } from "@/lib/runs/runs";

export const dynamic = "force-dynamic";

/** One run, with live counters and timeline while it is in progress. */
export const GET = adminRoute(async (_request, { params }: IdRouteContext) => {
  return Response.json({ run: await getRun(await runIdFrom(params)) }, { headers: { "cache-control": "no-store" } });
});

export const POST = methodNotAllowed("GET");
export const PUT = methodNotAllowed("GET");
export const PATCH = methodNotAllowed("GET");
export const DELETE = methodNotAllowed("GET");
