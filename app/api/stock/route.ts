import { getEnv } from "@/lib/env";
import { errorResponse, methodNotAllowed } from "@/lib/http/errors";
import { getConfig } from "@/lib/sale/config";
import { SKU } from "@/lib/sale/keys";
import { getStock } from "@/lib/sale/sale";
import { StoreUnavailableError } from "@/lib/purchase/errors";

export const dynamic = "force-dynamic";

/** The live stock of goods:001 and the strategy guarding it. */
export async function GET(): Promise<Response> {
  try {
    const [stock, config] = await Promise.all([getStock(), getConfig()]);
    return Response.json(
      { sku: SKU, stock, strategy: config.strategy, instance: getEnv().APP_INSTANCE },
      { headers: { "cache-control": "no-store" } },
    );
  } catch (error) {
    return errorResponse(new StoreUnavailableError("the stock could not be read", { cause: error }));
  }
}

export const POST = methodNotAllowed("GET");
