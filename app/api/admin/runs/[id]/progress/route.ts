import { errorResponse } from "@/lib/http/errors";
import { readJsonBody } from "@/lib/http/read-json";
import { runIdFrom } from "@/lib/http/route-params";
import { authorizeRunReport, reportProgress } from "@/lib/runs/runs";
import { runProgressSchema } from "@/lib/validations/run";

export const dynamic = "force-dynamic";

/** The load tool's live counters; authorised by the run's own report token, not a session. */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  try {
    const id = await runIdFrom(params);
    const token = request.headers.get("x-run-token");
    await authorizeRunReport(id, token);
    const progress = runProgressSchema.parse(await readJsonBody(request));
    await reportProgress(id, progress);
    return new Response(null, { status: 204 });
  } catch (error) {
    return errorResponse(error);
  }
}
