import { z } from "zod";
import { requireAdmin } from "@/lib/auth/guard";
import { errorResponse, methodNotAllowed } from "@/lib/http/errors";
import { readJsonBody } from "@/lib/http/read-json";
import { getSaleStats, resetSale } from "@/lib/sale/sale";

export const dynamic = "force-dynamic";

const saleResetSchema = z.object({ initialStock: z.number().int().min(0).max(100_000).optional() }).strict();

export async function GET(request: Request): Promise<Response> {
  try {
    await requireAdmin(request);
    return Response.json({ sale: await getSaleStats() });
  } catch (error) {
    return errorResponse(error);
  }
}

/** Reset the sale: a new sale with fresh stock; earlier orders stay with their sale. */
export async function POST(request: Request): Promise<Response> {
  try {
    await requireAdmin(request);
    const input = saleResetSchema.parse(await readJsonBody(request));
    await resetSale(input);
    return Response.json({ sale: await getSaleStats() }, { status: 201 });
  } catch (error) {
    return errorResponse(error);
  }
}

export const PUT = methodNotAllowed("GET, POST");
