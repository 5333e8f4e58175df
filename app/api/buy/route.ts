import { getEnv } from "@/lib/env";
import { errorResponse, methodNotAllowed } from "@/lib/http/errors";
import { readJsonBody } from "@/lib/http/read-json";
import { purchase } from "@/lib/purchase/purchase";
import { buyCreateSchema } from "@/lib/validations/buy";

export const dynamic = "force-dynamic";

/** Buy one unit of goods:001 under the active lock strategy. Every answer names the instance that served it. */
export async function POST(request: Request): Promise<Response> {
  const instance = getEnv().APP_INSTANCE;
  const headers = { "x-instance": instance };
  try {
    const input = buyCreateSchema.parse(await readJsonBody(request));
    const receipt = await purchase(input);
    return Response.json({ status: "bought", ...receipt }, { status: 201, headers });
  } catch (error) {
    const response = errorResponse(error, { instance });
    response.headers.set("x-instance", instance);
    return response;
  }
}

export const GET = methodNotAllowed("POST");
export const PUT = methodNotAllowed("POST");
export const PATCH = methodNotAllowed("POST");
export const DELETE = methodNotAllowed("POST");
