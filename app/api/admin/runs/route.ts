import { adminRoute } from "@/lib/auth/guard";
import { methodNotAllowed } from "@/lib/http/errors";
import { readJsonBody } from "@/lib/http/read-json";
import { launchDriver } from "@/lib/runs/launch";
import { listRuns, startRun } from "@/lib/runs/runs";
import { runCreateSchema } from "@/lib/validations/run";

export const dynamic = "force-dynamic";

export const GET = adminRoute(async () => {
  return Response.json({ runs: await listRuns() });
});

/** Start a run: reset the sale under the chosen strategy; with `start`, launch the built-in driver. */
export const POST = adminRoute(async (request) => {
  const input = runCreateSchema.parse(await readJsonBody(request));
  const { run, reportToken } = await startRun(input);
  if (input.start) {
    launchDriver(run, reportToken);
    return Response.json({ run }, { status: 201 });
  }
  return Response.json({ run, reportToken }, { status: 201 });
});

export const PUT = methodNotAllowed("GET, POST");
export const PATCH = methodNotAllowed("GET, POST");
export const DELETE = methodNotAllowed("GET, POST");
