import { requireAdmin } from "@/lib/auth/guard";
import { errorResponse } from "@/lib/http/errors";
import { listRuns, runsToCsv } from "@/lib/runs/runs";

export const dynamic = "force-dynamic";

/** The run history as CSV, for workshop handouts. */
export async function GET(request: Request): Promise<Response> {
  try {
    await requireAdmin(request);
    return new Response(runsToCsv(await listRuns(10_000)), {
      headers: {
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": 'attachment; filename="lock-lab-runs.csv"',
      },
    });
  } catch (error) {
    return errorResponse(error);
  }
}
