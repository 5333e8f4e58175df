import { requireAdmin } from "@/lib/auth/guard";
import { errorResponse, methodNotAllowed } from "@/lib/http/errors";
import { readJsonBody } from "@/lib/http/read-json";
import { getConfig, updateConfig } from "@/lib/sale/config";
import { lockConfigUpdateSchema } from "@/lib/validations/config";

export const dynamic = "force-dynamic";

/** The shared strategy and knobs every instance reads. */
export async function GET(request: Request): Promise<Response> {
  try {
    await requireAdmin(request);
    return Response.json({ config: await getConfig() });
  } catch (error) {
    return errorResponse(error);
  }
}

/** Switch strategy and/or knobs for every instance at once. */
export async function PUT(request: Request): Promise<Response> {
  try {
    await requireAdmin(request);
    const update = lockConfigUpdateSchema.parse(await readJsonBody(request));
    return Response.json({ config: await updateConfig(update) });
  } catch (error) {
    return errorResponse(error);
  }
}

export const POST = PUT;
export const DELETE = methodNotAllowed("GET, PUT");
