import { adminRoute } from "@/lib/auth/guard";
import { methodNotAllowed } from "@/lib/http/errors";
import { liveEventStream } from "@/lib/workshop/sse";

export const dynamic = "force-dynamic";

/** The projector's server-sent events: the store's live snapshot plus the sale's accounting. */
export const GET = adminRoute(async (request) => liveEventStream(request, true));

export const POST = methodNotAllowed("GET");
export const PUT = methodNotAllowed("GET");
export const PATCH = methodNotAllowed("GET");
export const DELETE = methodNotAllowed("GET");
