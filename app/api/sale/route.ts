import { methodNotAllowed, publicRoute } from "@/lib/http/errors";
import { getSaleStats } from "@/lib/sale/sale";

export const dynamic = "force-dynamic";

/** The current sale's accounting: units sold, sold twice, lost, phantom, pending, signed oversell, peak holders, verdict. */
export const GET = publicRoute(async () => Response.json(await getSaleStats(), { headers: { "cache-control": "no-store" } }));

export const POST = methodNotAllowed("GET");
export const PUT = methodNotAllowed("GET");
export const PATCH = methodNotAllowed("GET");
export const DELETE = methodNotAllowed("GET");
