import { getDb } from "../db";
import { getRedis, getRedisNodes } from "../redis";
import { getConfig } from "./config";
import { SALE_KEY, SKU, STOCK_KEY, saleCounterKeys } from "./keys";

export interface CurrentSale {
  readonly id: number;
  readonly sku: string;
  readonly initialStock: number;
  /** The load run this sale belongs to, if a run started it. */
  readonly runId?: number;
}

export interface SaleStats extends CurrentSale {
  readonly strategy: string;
  readonly orders: number;
  readonly remaining: number;
  /** orders − initial stock, when positive: units sold that did not exist. */
  readonly oversell: number;
  /** initial − orders − remaining, when positive: units taken from Redis with no order. */
  readonly lostStock: number;
  /** The most requests ever inside the critical section at once (1 for a correct lock). */
  readonly peakHolders: number;
  /** Releases that found the lock already expired or taken by another holder. */
  readonly locksLost: number;
  /** Requests inside the critical section right now. */
  readonly holdersNow: number;
  /** Stale accesses a fenced store refused (token-fencing). */
  readonly staleRefused: number;
}

/**
 * Starts a new sale: a Sale row in Postgres, then the Redis stock and counters. Orders of earlier
 * sales stay in Postgres; every invariant is computed per sale.
 */
export async function resetSale(options: { initialStock?: number } = {}): Promise<CurrentSale> {
  const db = getDb();
  const product = await db.product.findUniqueOrThrow({ where: { sku: SKU } });
  const initialStock = options.initialStock ?? product.initialStock;
  const { strategy } = await getConfig();
  const sale = await db.sale.create({ data: { sku: SKU, initialStock, strategy } });
  await clearLocks();
  await getRedis()
    .multi()
    .set(STOCK_KEY, initialStock)
    .hset(SALE_KEY, { id: sale.id, sku: SKU, initialStock })
    .exec();
  return { id: sale.id, sku: SKU, initialStock };
}

/**
 * A new sale starts with no lock held: one left by a holder that crashed (a lock with no expiry
 * never goes away by itself) is deleted on every node that answers.
 */
export async function clearLocks(): Promise<void> {
  await Promise.allSettled(getRedisNodes().map((node) => node.del(`lock:${SKU}`)));
}

export async function getCurrentSale(): Promise<CurrentSale> {
  const stored = await getRedis().hgetall(SALE_KEY);
  if (stored.id) {
    return {
      id: Number(stored.id),
      sku: stored.sku ?? SKU,
      initialStock: Number(stored.initialStock),
      ...(stored.runId ? { runId: Number(stored.runId) } : {}),
    };
  }
  // Redis lost its data (a restart without persistence): the last sale in Postgres is the current one.
  const latest = await getDb().sale.findFirst({ where: { sku: SKU }, orderBy: { id: "desc" } });
  if (!latest) return resetSale();
  return { id: latest.id, sku: latest.sku, initialStock: latest.initialStock };
}

export async function getStock(): Promise<number> {
  return Number((await getRedis().get(STOCK_KEY)) ?? 0);
}

/** Marks the current sale as belonging to a load run, so its orders carry the run's id. */
export async function tagSaleWithRun(saleId: number, runId: number): Promise<void> {
  const redis = getRedis();
  if (Number(await redis.hget(SALE_KEY, "id")) === saleId) await redis.hset(SALE_KEY, { runId });
}

/** The invariants of the current sale, or of an earlier one by id. */
export async function getSaleStats(saleId?: number): Promise<SaleStats> {
  const current = await getCurrentSale();
  const sale = saleId === undefined || saleId === current.id ? current : await getPastSale(saleId);
  const keys = saleCounterKeys(sale.id);
  const [orders, values, holders, config] = await Promise.all([
    getDb().order.count({ where: { saleId: sale.id } }),
    getRedis().mget(STOCK_KEY, keys.peak, keys.lockLost, keys.staleRefused),
    getRedis().hvals(keys.holders),
    getConfig(),
  ]);
  const [stock, peak, lockLost, staleRefused] = values.map((value) => Number(value ?? 0)) as [number, number, number, number];
  return {
    ...sale,
    strategy: config.strategy,
    orders,
    remaining: stock,
    oversell: Math.max(0, orders - sale.initialStock),
    lostStock: Math.max(0, sale.initialStock - orders - stock),
    peakHolders: peak,
    locksLost: lockLost,
    holdersNow: holders.reduce((sum, count) => sum + Number(count), 0),
    staleRefused,
  };
}

async function getPastSale(saleId: number): Promise<CurrentSale> {
  const sale = await getDb().sale.findUniqueOrThrow({ where: { id: saleId } });
  return { id: sale.id, sku: sale.sku, initialStock: sale.initialStock };
}
