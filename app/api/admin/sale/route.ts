import { adminRoute } from "@/lib/auth/guard";
import { methodNotAllowed } from "@/lib/http/errors";
import { whileStackFree } from "@/lib/runs/runs";
import { readJsonBody } from "@/lib/http/read-json";
import { getSaleStats, resetSale } from "@/lib/sale/sale";
import { saleResetSchema } from "@/lib/validations/sale";

export const dynamic = "force-dynamic";

export const GET = adminRoute(async () => {
  return Response.json({ sale: await getSaleStats() });
});

/** Reset the sale: a new sale with fresh stock; earlier orders stay with their sale. */
export const POST = adminRoute(async (request) => {
  const input = saleResetSchema.parse(await readJsonBody(request));
  await whileStackFree(() => resetSale(input));
  return Response.json({ sale: await getSaleStats() }, { status: 201 });
});

export const PUT = methodNotAllowed("GET, POST");
export const PATCH = methodNotAllowed("GET, POST");
export const DELETE = methodNotAllowed("GET, POST");
