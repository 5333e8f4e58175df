import { errorResponse, methodNotAllowed } from "@/lib/http/errors";
import { getSaleStats } from "@/lib/sale/sale";

export const dynamic = "force-dynamic";

/** The current sale's invariants: orders, remaining, oversell, lost stock, peak holders. */
export async function GET(): Promise<Response> {
  try {
    return Response.json(await getSaleStats(), { headers: { "cache-control": "no-store" } });
  } catch (error) {
    return errorResponse(error);
  }
}

export const POST = methodNotAllowed("GET");
