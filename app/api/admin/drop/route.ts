import { adminRoute } from "@/lib/auth/guard";
import { methodNotAllowed } from "@/lib/http/errors";
import { whileStackFree } from "@/lib/runs/runs";
import { readJsonBody } from "@/lib/http/read-json";
import { storeCall } from "@/lib/store-call";
import { dropCreateSchema } from "@/lib/validations/workshop";
import { dropOf } from "@/lib/sale/rules/drop";
import { closeDrop, startDrop } from "@/lib/workshop/drop";

export const dynamic = "force-dynamic";

/** Start a drop: a new sale of `stock` units that opens for everyone after `countdownS`. */
export const POST = adminRoute(async (request) => {
  const input = dropCreateSchema.parse(await readJsonBody(request));
  const sale = await storeCall(() => whileStackFree(() => startDrop(input)));
  return Response.json(
    { sale: { id: sale.id, initialStock: sale.initialStock, onePerBuyer: sale.onePerBuyer, ...(sale.locale ? { locale: sale.locale } : {}) }, drop: dropOf(sale) },
    { status: 201 },
  );
});

/** Close the current drop: from now on buyers are told it is closed. */
export const DELETE = adminRoute(async () => {
  const sale = await storeCall(() => closeDrop());
  return Response.json({ sale: { id: sale.id }, drop: dropOf(sale) });
});

export const GET = methodNotAllowed("POST, DELETE");
export const PUT = methodNotAllowed("POST, DELETE");
export const PATCH = methodNotAllowed("POST, DELETE");
