import { requireAdmin } from "@/lib/auth/guard";
import { errorResponse } from "@/lib/http/errors";
import { runIdFrom } from "@/lib/http/route-params";
import { getRun } from "@/lib/runs/runs";

export const dynamic = "force-dynamic";

/** A run's whole record as a JSON file, for workshop handouts. */
export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  try {
    await requireAdmin(request);
    const run = await getRun(await runIdFrom(params));
    return new Response(JSON.stringify(run, null, 2), {
      headers: {
        "content-type": "application/json; charset=utf-8",
        "content-disposition": `attachment; filename="lock-lab-run-${run.id}.json"`,
      },
    });
  } catch (error) {
    return errorResponse(error);
  }
}
