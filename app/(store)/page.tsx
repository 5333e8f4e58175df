import { cookies } from "next/headers";
import { getFormatter, getTranslations } from "next-intl/server";
import { getDb } from "@/lib/db";
import { SKU } from "@/lib/sale/keys";
import { BUYER_COOKIE, buyerFromCookie, getBuyerName } from "@/lib/workshop/buyers";
import { getLiveSnapshot } from "@/lib/workshop/live";
import { getRoom } from "../room-locale";
import { BuyPanel } from "./buy-panel";
import type { Me } from "./me";

export const dynamic = "force-dynamic";

async function getMe(): Promise<Me | null> {
  const buyer = buyerFromCookie((await cookies()).get(BUYER_COOKIE)?.value);
  const name = buyer && (await getBuyerName(buyer));
  return buyer && name ? { buyer, name } : null;
}

export default async function StorePage() {
  const [product, snapshot, me, room] = await Promise.all([getDb().product.findUnique({ where: { sku: SKU } }), getLiveSnapshot(), getMe(), getRoom()]);
  const [t, format] = await Promise.all([getTranslations({ locale: room.locale, namespace: "store" }), getFormatter({ locale: room.locale })]);
  if (!product) {
    return <p className="notice error">{t("noProduct", { sku: SKU })}</p>;
  }
  return (
    <section className="product">
      {/* eslint-disable-next-line @next/next/no-img-element -- a local SVG needs no optimisation */}
      <img src={product.imageUrl} alt={product.name} width={380} height={285} />
      <div>
        {/* The product's name is a name (never translated); its description is ours to translate for goods:001. */}
        <h1>{product.name}</h1>
        <div className="sku">{product.sku}</div>
        <p className="muted description">{product.sku === SKU ? t("productDescription") : product.description}</p>
        <div className="price">{format.number(product.priceCents / 100, { style: "currency", currency: "USD" })}</div>
        <BuyPanel sku={product.sku} initial={snapshot} me={me} pinned={room.pinned ?? null} />
      </div>
    </section>
  );
}
