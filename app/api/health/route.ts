import { getEnv } from "@/lib/env";

export const dynamic = "force-dynamic";

/** Liveness of this app instance (the stack runner waits for it). */
export function GET(): Response {
  return Response.json({ ok: true, instance: getEnv().APP_INSTANCE });
}
