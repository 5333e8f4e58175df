import { methodNotAllowed, publicRoute } from "@/lib/http/errors";
import { getSaleStatsShared } from "@/lib/sale/sale";

export const dynamic = "force-dynamic";

/**
 * The current sale's accounting: units sold, sold twice, lost, phantom, pending, signed oversell, peak
 * holders, verdict. Public, so one reading at a time, shared by the requests that arrive meanwhile.
 */
export const GET = publicRoute(async () => Response.json(await getSaleStatsShared(), { headers: { "cache-control": "no-store" } }));

export const POST = methodNotAllowed("GET");
export const PUT = methodNotAllowed("GET");
export const PATCH = methodNotAllowed("GET");
export const DELETE = methodNotAllowed("GET");
