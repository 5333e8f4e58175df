import { errorResponse } from "@/lib/http/errors";
import { readJsonBody } from "@/lib/http/read-json";
import { runIdFrom } from "@/lib/http/route-params";
import { authorizeRunReport, completeRun } from "@/lib/runs/runs";
import { runCompleteSchema } from "@/lib/validations/run";

export const dynamic = "force-dynamic";

/** k6's handleSummary or the built-in driver's summary; the run's invariants come from the server. */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  try {
    const id = await runIdFrom(params);
    const token = request.headers.get("x-run-token");
    await authorizeRunReport(id, token);
    const summary = runCompleteSchema.parse(await readJsonBody(request, 2 * 1024 * 1024));
    return Response.json({ run: await completeRun(id, summary) });
  } catch (error) {
    return errorResponse(error);
  }
}
