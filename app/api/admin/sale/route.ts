import { z } from "zod";
import { adminRoute } from "@/lib/auth/guard";
import { methodNotAllowed } from "@/lib/http/errors";
import { readJsonBody } from "@/lib/http/read-json";
import { getSaleStats, resetSale } from "@/lib/sale/sale";

export const dynamic = "force-dynamic";

const saleResetSchema = z.object({ initialStock: z.number().int().min(0).max(100_000).optional() }).strict();

export const GET = adminRoute(async () => {
  return Response.json({ sale: await getSaleStats() });
});

/** Reset the sale: a new sale with fresh stock; earlier orders stay with their sale. */
export const POST = adminRoute(async (request) => {
  const input = saleResetSchema.parse(await readJsonBody(request));
  await resetSale(input);
  return Response.json({ sale: await getSaleStats() }, { status: 201 });
});

export const PUT = methodNotAllowed("GET, POST");
