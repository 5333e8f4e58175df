import { getDb } from "@/lib/db";
import { getConfig } from "@/lib/sale/config";
import { SKU } from "@/lib/sale/keys";
import { getStock } from "@/lib/sale/sale";
import { BuyPanel } from "./buy-panel";

export const dynamic = "force-dynamic";

const formatPrice = (cents: number) =>
  new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" }).format(cents / 100);

export default async function StorePage() {
  const [product, stock, config] = await Promise.all([
    getDb().product.findUnique({ where: { sku: SKU } }),
    getStock(),
    getConfig(),
  ]);
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
        <BuyPanel sku={product.sku} initialStock={stock} initialStrategy={config.strategy} />
      </div>
    </section>
  );
}
