import { methodNotAllowed, publicRoute } from "@/lib/http/errors";
import { readJsonBody } from "@/lib/http/read-json";
import { runIdFrom, type IdRouteContext } from "@/lib/http/route-params";
import { authorizeRunReport, completeRun } from "@/lib/runs/runs";
import { runCompleteSchema } from "@/lib/validations/run";

export const dynamic = "force-dynamic";

/** k6's handleSummary or the built-in driver's summary; the run's accounting comes from the server. */
export const POST = publicRoute(async (request, { params }: IdRouteContext) => {
  const id = await runIdFrom(params);
  await authorizeRunReport(id, request.headers.get("x-run-token"));
  const summary = runCompleteSchema.parse(await readJsonBody(request, 2 * 1024 * 1024));
  return Response.json({ run: await completeRun(id, summary) });
});

export const GET = methodNotAllowed("POST");
export const PUT = methodNotAllowed("POST");
export const PATCH = methodNotAllowed("POST");
export const DELETE = methodNotAllowed("POST");
