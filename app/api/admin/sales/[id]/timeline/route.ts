import { adminRoute } from "@/lib/auth/guard";
import { methodNotAllowed } from "@/lib/http/errors";
import { saleIdFrom, type IdRouteContext } from "@/lib/http/route-params";
import { SaleNotFoundError } from "@/lib/timeline/errors";
import { getTimeline } from "@/lib/timeline/store";
import { getBuyerNames } from "@/lib/workshop/buyers";

export const dynamic = "force-dynamic";

/** A sale's holder timeline: its events, the anomalies found in them and the sale's accounting. */
export const GET = adminRoute(async (_request, { params }: IdRouteContext) => {
  const saleId = await saleIdFrom(params);
  const view = await getTimeline(saleId, getBuyerNames);
  if (!view) throw new SaleNotFoundError(saleId);
  return Response.json(view, {
    headers: { "cache-control": "no-store", "content-disposition": `inline; filename="sale-${saleId}-timeline.json"` },
  });
});

export const POST = methodNotAllowed("GET");
export const PUT = methodNotAllowed("GET");
export const PATCH = methodNotAllowed("GET");
export const DELETE = methodNotAllowed("GET");
