import { adminRoute } from "@/lib/auth/guard";
import { methodNotAllowed } from "@/lib/http/errors";
import { listRuns, runsToCsv } from "@/lib/runs/runs";

export const dynamic = "force-dynamic";

/** The run history as CSV, for workshop handouts. */
export const GET = adminRoute(async () => {
  return new Response(runsToCsv(await listRuns(10_000)), {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": 'attachment; filename="lock-lab-runs.csv"',
    },
  });
});

export const POST = methodNotAllowed("GET");
export const PUT = methodNotAllowed("GET");
export const PATCH = methodNotAllowed("GET");
export const DELETE = methodNotAllowed("GET");
