import { getEnv } from "@/lib/env";
import { methodNotAllowed } from "@/lib/http/errors";

export const dynamic = "force-dynamic";

/** Liveness of this app instance (the stack runner waits for it). */
export function GET(): Response {
  return Response.json({ ok: true, instance: getEnv().APP_INSTANCE });
}

export const POST = methodNotAllowed("GET");
export const PUT = methodNotAllowed("GET");
export const PATCH = methodNotAllowed("GET");
export const DELETE = methodNotAllowed("GET");
