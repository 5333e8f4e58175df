import { adminRoute } from "@/lib/auth/guard";
import { methodNotAllowed } from "@/lib/http/errors";
import { runIdFrom, type IdRouteContext } from "@/lib/http/route-params";
import { getRun } from "@/lib/runs/runs";

export const dynamic = "force-dynamic";

/** A run's whole record as a JSON file, for workshop handouts. */
export const GET = adminRoute(async (_request, { params }: IdRouteContext) => {
  const run = await getRun(await runIdFrom(params));
  return new Response(JSON.stringify(run, null, 2), {
    headers: {
      "content-type": "application/json; charset=utf-8",
      "content-disposition": `attachment; filename="lock-lab-run-${run.id}.json"`,
    },
  });
});

export const POST = methodNotAllowed("GET");
export const PUT = methodNotAllowed("GET");
export const PATCH = methodNotAllowed("GET");
export const DELETE = methodNotAllowed("GET");
