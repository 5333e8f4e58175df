import { methodNotAllowed, publicRoute } from "@/lib/http/errors";
import { readJsonBody } from "@/lib/http/read-json";
import { runIdFrom, type IdRouteContext } from "@/lib/http/route-params";
import { authorizeRunReport, reportProgress } from "@/lib/runs/runs";
import { runProgressSchema } from "@/lib/validations/run";

export const dynamic = "force-dynamic";

/** The load tool's live counters; authorised by the run's own report token, not a session. */
export const POST = publicRoute(async (request, { params }: IdRouteContext) => {
  const id = await runIdFrom(params);
  await authorizeRunReport(id, request.headers.get("x-run-token"));
  const progress = runProgressSchema.parse(await readJsonBody(request));
  await reportProgress(id, progress);
  return new Response(null, { status: 204 });
});

export const GET = methodNotAllowed("POST");
export const PUT = methodNotAllowed("POST");
export const PATCH = methodNotAllowed("POST");
export const DELETE = methodNotAllowed("POST");
