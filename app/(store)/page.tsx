import { cookies } from "next/headers";
import { getDb } from "@/lib/db";
import { SKU } from "@/lib/sale/keys";
import { BUYER_COOKIE, buyerFromCookie, getBuyerName } from "@/lib/workshop/buyers";
import { getLiveSnapshot } from "@/lib/workshop/live";
import { BuyPanel } from "./buy-panel";
import type { Me } from "./me";

export const dynamic = "force-dynamic";

const formatPrice = (cents: number) =>
  new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" }).format(cents / 100);

async function getMe(): Promise<Me | null> {
  const buyer = buyerFromCookie((await cookies()).get(BUYER_COOKIE)?.value);
  const name = buyer && (await getBuyerName(buyer));
  return buyer && name ? { buyer, name } : null;
}

export default async function StorePage() {
  const [product, snapshot, me] = await Promise.all([getDb().product.findUnique({ where: { sku: SKU } }), getLiveSnapshot(), getMe()]);
  if (!product) {
    return <p className="notice error">The product {SKU} is not in the database yet: run the seed (npm run db:seed).</p>;
  }
  return (
    <section className="product">
      {/* eslint-disable-next-line @next/next/no-img-element -- a local SVG needs no optimisation */}
      <img src={product.imageUrl} alt={product.name} width={380} height={285} />
      <div>
        <h1>{product.name}</h1>
        <div className="sku">{product.sku}</div>
        <p className="muted">{product.description}</p>
        <div className="price">{formatPrice(product.priceCents)}</div>
        <BuyPanel sku={product.sku} initial={snapshot} me={me} />
      </div>
    </section>
  );
}
