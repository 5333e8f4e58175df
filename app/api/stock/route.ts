import { getEnv } from "@/lib/env";
import { methodNotAllowed, publicRoute } from "@/lib/http/errors";
import { StoreUnavailableError } from "@/lib/errors";
import { getConfig } from "@/lib/sale/config";
import { SKU } from "@/lib/sale/keys";
import { getStock } from "@/lib/sale/sale";

export const dynamic = "force-dynamic";

/** The live stock of goods:001 and the strategy guarding it. */
export const GET = publicRoute(
  async () => {
    const [stock, config] = await Promise.all([getStock(), getConfig()]);
    return Response.json({ sku: SKU, stock, strategy: config.strategy, instance: getEnv().APP_INSTANCE }, { headers: { "cache-control": "no-store" } });
  },
  (error) => new StoreUnavailableError("the stock could not be read", { cause: error }),
);

export const POST = methodNotAllowed("GET");
export const PUT = methodNotAllowed("GET");
export const PATCH = methodNotAllowed("GET");
export const DELETE = methodNotAllowed("GET");
