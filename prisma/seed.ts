/**
 * Creates the product goods:001 and its lock row, then starts a fresh sale: the Redis stock is
 * set to INITIAL_STOCK (default 100). Safe to run again; every run starts a new sale.
 */
import { closeDb, getDb } from "../lib/db";
import { getEnv } from "../lib/env";
import { closeRedis } from "../lib/redis";
import { SKU } from "../lib/sale/keys";
import { resetSale } from "../lib/sale/sale";

async function main() {
  const db = getDb();
  const initialStock = getEnv().INITIAL_STOCK;
  await db.product.upsert({
    where: { sku: SKU },
    update: { initialStock },
    create: {
      sku: SKU,
      name: "Keyboard 001 — limited drop",
      priceCents: 12900,
      initialStock,
      imageUrl: "/goods-001.svg",
      description: "A mechanical keyboard in a run of a hundred. Every unit sold must exist.",
    },
  });
  await db.lockRow.upsert({ where: { name: SKU }, update: {}, create: { name: SKU } });
  const sale = await resetSale({ initialStock });
  console.log(`seeded ${SKU}: sale ${sale.id}, stock ${sale.initialStock}`);
}

main()
  .catch((error) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(async () => {
    await Promise.allSettled([closeDb(), closeRedis()]);
  });
