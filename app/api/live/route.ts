import { methodNotAllowed } from "@/lib/http/errors";
import { liveEventStream } from "@/lib/workshop/sse";

export const dynamic = "force-dynamic";

/** Server-sent events for the store's pages: stock, holders, the drop and who got one, on every change. */
export async function GET(request: Request): Promise<Response> {
  return liveEventStream(request, false);
}

export const POST = methodNotAllowed("GET");
export const PUT = methodNotAllowed("GET");
export const PATCH = methodNotAllowed("GET");
export const DELETE = methodNotAllowed("GET");
