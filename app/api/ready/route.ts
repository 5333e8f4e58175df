import { getEnv } from "@/lib/env";
import { methodNotAllowed } from "@/lib/http/errors";
import { publicErrorMessage } from "@/lib/i18n/api-errors";
import { localeOfRequest } from "@/lib/i18n/locales";
import { getLog } from "@/lib/log";
import { readiness } from "@/lib/readiness";

export const dynamic = "force-dynamic";

/**
 * Readiness: 200 when every server the active strategy needs answers, else 503 saying which do not
 * — by name only (`"postgres": "unavailable"`). Why each failed (refused at a host and port, a
 * driver's timeout) is the log's, never a public answer.
 */
export async function GET(request: Request): Promise<Response> {
  const result = await readiness();
  const instance = getEnv().APP_INSTANCE;
  const checks = Object.fromEntries(Object.entries(result.checks).map(([what, status]) => [what, status === "ok" ? "ok" : "unavailable"]));
  if (result.ready) return Response.json({ ...result, checks, instance }, { headers: { "cache-control": "no-store" } });
  const failing = Object.fromEntries(Object.entries(result.checks).filter(([, status]) => status !== "ok"));
  getLog().warn({ strategy: result.strategy, failing }, "not ready");
  return Response.json(
    { code: "not_ready", message: publicErrorMessage("not_ready", {}, localeOfRequest(request)), ready: false, strategy: result.strategy, checks, instance },
    { status: 503, headers: { "cache-control": "no-store", "retry-after": "1" } },
  );
}

export const POST = methodNotAllowed("GET");
export const PUT = methodNotAllowed("GET");
export const PATCH = methodNotAllowed("GET");
export const DELETE = methodNotAllowed("GET");
