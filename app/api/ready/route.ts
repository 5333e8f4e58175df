import { getEnv } from "@/lib/env";
import { methodNotAllowed } from "@/lib/http/errors";
import { readiness } from "@/lib/readiness";

export const dynamic = "force-dynamic";

/** Readiness: 200 when every server the active strategy needs answers, else 503 saying which do not. */
export async function GET(): Promise<Response> {
  const result = await readiness();
  const instance = getEnv().APP_INSTANCE;
  if (result.ready) return Response.json({ ...result, instance }, { headers: { "cache-control": "no-store" } });
  const failing = Object.entries(result.checks).filter(([, status]) => status !== "ok").map(([what]) => what);
  return Response.json(
    { code: "not_ready", message: `not ready: ${failing.join(", ")} ${failing.length === 1 ? "does" : "do"} not answer`, ...result, instance },
    { status: 503, headers: { "cache-control": "no-store", "retry-after": "1" } },
  );
}

export const POST = methodNotAllowed("GET");
export const PUT = methodNotAllowed("GET");
export const PATCH = methodNotAllowed("GET");
export const DELETE = methodNotAllowed("GET");
