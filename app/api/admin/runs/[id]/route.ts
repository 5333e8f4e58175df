import { requireAdmin } from "@/lib/auth/guard";
import { errorResponse } from "@/lib/http/errors";
import { runIdFrom } from "@/lib/http/route-params";
import { getRun } from "@/lib/runs/runs";

export const dynamic = "force-dynamic";

/** One run, with live counters and timeline while it is in progress. */
export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  try {
    await requireAdmin(request);
    return Response.json({ run: await getRun(await runIdFrom(params)) }, { headers: { "cache-control": "no-store" } });
  } catch (error) {
    return errorResponse(error);
  }
}
