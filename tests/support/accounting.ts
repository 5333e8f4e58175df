/**
 * The tests' own accounting checker: it reads Postgres and Redis directly — its own connections,
 * its own SQL — never the app's API or the app's accounting code, and counts a sale per unit:
 * orders, units sold twice, units outside 1..initial, units lost (neither sold, nor on the shelf,
 * nor reserved), units on the shelf that were already sold, signed oversell.
 */
import Redis from "ioredis";
import pg from "pg";
import { afterAll } from "vitest";

export interface CheckedSale {
  readonly saleId: number;
  readonly initialStock: number;
  readonly orders: number;
  readonly doubleSold: number;
  readonly outOfRange: number;
  readonly remaining: number;
  readonly pendingUnits: number;
  readonly lostUnits: number;
  readonly phantomUnits: number;
  readonly oversell: number;
}

const databaseUrl = process.env.DATABASE_URL ?? "postgresql://locklab@127.0.0.1:55432/locklab";
const node1 = (process.env.REDIS_NODES ?? "127.0.0.1:7001").split(",")[0]!.trim();

let pool: pg.Pool | undefined;
let redis: Redis | undefined;

function connections() {
  if (!pool) {
    pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    // Tests stop Postgres: an idle connection it ends is not a test failure.
    pool.on("error", () => {});
  }
  if (!redis) {
    redis = new Redis({ host: node1.split(":")[0], port: Number(node1.split(":")[1]), maxRetriesPerRequest: 1 });
    redis.on("error", () => {});
  }
  return { pool, redis };
}

afterAll(async () => {
  await pool?.end();
  redis?.disconnect();
  pool = undefined;
  redis = undefined;
});

/** The most requests that were inside the sale's critical section at once, as Redis counted them. */
export async function peakHolders(saleId: number): Promise<number> {
  return Number((await connections().redis.get(`locklab:sale:${saleId}:peak`)) ?? 0);
}

/** The sale Redis calls current. */
export async function currentSaleId(): Promise<number> {
  return Number(await connections().redis.hget("locklab:sale", "id"));
}

/** Units reserved in Redis whose order is not recorded yet. */
export async function pendingUnits(saleId: number): Promise<number[]> {
  const values = await connections().redis.hvals(`locklab:sale:${saleId}:pending`);
  return values.map((raw) => Number((JSON.parse(raw) as { unit: number }).unit));
}

/**
 * Counts the current sale, or an earlier one by id. A sale at rest is read once: its stock from
 * Redis while it is current, else the stock it was left with (`sales.final_stock`, written when
 * the next sale replaced it).
 */
export async function checkSale(saleId?: number): Promise<CheckedSale> {
  const { pool, redis } = connections();
  const current = await currentSaleId();
  const id = saleId ?? current;
  const [stockRaw, pending] = await Promise.all([
    id === current
      ? redis.get("goods:001")
      : pool.query<{ final_stock: number | null }>("SELECT final_stock FROM sales WHERE id = $1", [id]).then(({ rows }) => {
          if (rows[0]?.final_stock == null) throw new Error(`sale ${id} is not current and has no final stock recorded`);
          return String(rows[0].final_stock);
        }),
    pendingUnits(id),
  ]);
  const remaining = Number(stockRaw ?? 0);
  const { rows } = await pool.query<{
    initial_stock: number; orders: string; distinct_in_range: string; out_of_range: string; lost: string; phantom: string;
  }>(
    `WITH sale AS (SELECT initial_stock FROM sales WHERE id = $1),
          sold AS (SELECT stock_seen AS unit, count(*) AS n FROM orders WHERE sale_id = $1 AND status = 'sold' GROUP BY stock_seen),
          shelf AS (SELECT LEAST(GREATEST($2::int, 0), initial_stock) AS top FROM sale)
     SELECT sale.initial_stock,
            (SELECT coalesce(sum(n), 0) FROM sold) AS orders,
            (SELECT count(*) FROM sold WHERE unit BETWEEN 1 AND sale.initial_stock) AS distinct_in_range,
            (SELECT coalesce(sum(n), 0) FROM sold WHERE unit NOT BETWEEN 1 AND sale.initial_stock) AS out_of_range,
            (SELECT count(*) FROM generate_series((SELECT top FROM shelf) + 1, sale.initial_stock) AS u
              WHERE u NOT IN (SELECT unit FROM sold) AND u <> ALL($3::int[])) AS lost,
            (SELECT count(*) FROM sold WHERE unit BETWEEN 1 AND (SELECT top FROM shelf)) + GREATEST($2::int - sale.initial_stock, 0) AS phantom
     FROM sale`,
    [id, remaining, pending],
  );
  const row = rows[0];
  if (!row) throw new Error(`no sale ${id} in Postgres`);
  const orders = Number(row.orders);
  return {
    saleId: id,
    initialStock: row.initial_stock,
    orders,
    doubleSold: orders - Number(row.distinct_in_range),
    outOfRange: Number(row.out_of_range),
    remaining,
    pendingUnits: pending.length,
    lostUnits: Number(row.lost),
    phantomUnits: Number(row.phantom),
    oversell: orders - row.initial_stock,
  };
}

/** Waits (bounded) until no reservation of the sale is pending — the reconciler has settled them. */
export async function settledSale(saleId?: number, timeoutMs = 20_000): Promise<CheckedSale> {
  const deadline = Date.now() + timeoutMs;
  let checked = await checkSale(saleId);
  while (checked.pendingUnits > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    checked = await checkSale(saleId);
  }
  return checked;
}

/** Buyers whose reservation the reconciler put back on the shelf (the sale's 'returned' tombstones in Postgres), sorted as JS sorts. */
export async function returnedBuyers(saleId?: number): Promise<string[]> {
  const { pool } = connections();
  const id = saleId ?? (await currentSaleId());
  const { rows } = await pool.query<{ buyer: string }>("SELECT buyer FROM orders WHERE sale_id = $1 AND status = 'returned'", [id]);
  return rows.map((row) => row.buyer).sort();
}

/** A sale whose stock stayed honest: every unit sold once at most, none lost, none back on the shelf. */
export function honest(checked: CheckedSale) {
  return { doubleSold: checked.doubleSold, lostUnits: checked.lostUnits, phantomUnits: checked.phantomUnits, pendingUnits: checked.pendingUnits };
}
export const HONEST = { doubleSold: 0, lostUnits: 0, phantomUnits: 0, pendingUnits: 0 } as const;
