import { requireAdmin } from "@/lib/auth/guard";
import { getEnv } from "@/lib/env";
import { errorResponse, methodNotAllowed } from "@/lib/http/errors";
import { getMetrics } from "@/lib/metrics";
import { sameSecret } from "@/lib/same-secret";

export const dynamic = "force-dynamic";

function bearerMatches(request: Request): boolean {
  return sameSecret(request.headers.get("authorization")?.replace(/^Bearer\s+/i, ""), getEnv().METRICS_TOKEN);
}

/** Prometheus text format: this instance's series. An admin session or METRICS_TOKEN is required. */
export async function GET(request: Request): Promise<Response> {
  try {
    if (!bearerMatches(request)) await requireAdmin(request);
    const { registry } = getMetrics();
    return new Response(await registry.metrics(), { headers: { "content-type": registry.contentType, "cache-control": "no-store" } });
  } catch (error) {
    return errorResponse(error);
  }
}

export const POST = methodNotAllowed("GET");
export const PUT = methodNotAllowed("GET");
export const PATCH = methodNotAllowed("GET");
export const DELETE = methodNotAllowed("GET");
