import { requireAdmin } from "@/lib/auth/guard";
import { errorResponse } from "@/lib/http/errors";
import { runIdFrom } from "@/lib/http/route-params";
import { failRun, getRun } from "@/lib/runs/runs";

export const dynamic = "force-dynamic";

/** Stop waiting for a run whose load tool died: it is marked failed with the invariants so far. */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  try {
    await requireAdmin(request);
    const id = await runIdFrom(params);
    await failRun(id, "cancelled by the instructor");
    return Response.json({ run: await getRun(id) });
  } catch (error) {
    return errorResponse(error);
  }
}
