import { adminRoute } from "@/lib/auth/guard";
import { methodNotAllowed } from "@/lib/http/errors";
import { whileStackFree } from "@/lib/runs/runs";
import { readJsonBody } from "@/lib/http/read-json";
import { getConfig, updateConfig } from "@/lib/sale/config";
import { lockConfigUpdateSchema } from "@/lib/validations/config";

export const dynamic = "force-dynamic";

/** The shared strategy and knobs every instance reads. */
export const GET = adminRoute(async () => {
  return Response.json({ config: await getConfig() });
});

/** Switch strategy and/or knobs for every instance at once. */
export const PUT = adminRoute(async (request) => {
  const update = lockConfigUpdateSchema.parse(await readJsonBody(request));
  return Response.json({ config: await whileStackFree(() => updateConfig(update)) });
});

export const POST = PUT;
export const PATCH = methodNotAllowed("GET, POST, PUT");
export const DELETE = methodNotAllowed("GET, POST, PUT");
