import { requireAdmin } from "@/lib/auth/guard";
import { errorResponse, methodNotAllowed } from "@/lib/http/errors";
import { readJsonBody } from "@/lib/http/read-json";
import { launchDriver } from "@/lib/runs/launch";
import { listRuns, startRun } from "@/lib/runs/runs";
import { runCreateSchema } from "@/lib/validations/run";

export const dynamic = "force-dynamic";

export async function GET(request: Request): Promise<Response> {
  try {
    await requireAdmin(request);
    return Response.json({ runs: await listRuns() });
  } catch (error) {
    return errorResponse(error);
  }
}

/** Start a run: reset the sale under the chosen strategy; with `start`, launch the built-in driver. */
export async function POST(request: Request): Promise<Response> {
  try {
    await requireAdmin(request);
    const input = runCreateSchema.parse(await readJsonBody(request));
    const { run, reportToken } = await startRun(input);
    if (input.start) {
      launchDriver(run, reportToken);
      return Response.json({ run }, { status: 201 });
    }
    return Response.json({ run, reportToken }, { status: 201 });
  } catch (error) {
    return errorResponse(error);
  }
}

export const PUT = methodNotAllowed("GET, POST");
