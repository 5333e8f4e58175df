import { getDb, getPool } from "../db";
import { getRedis, getRedisNodes } from "../redis";
import { countUnits, splitByStrategy, unitCountsOf, verdictOf, type StrategySplit, type StrategyUnitCount, type UnitAccounting, type Verdict } from "./accounting";
import { getActiveConfig, getConfig } from "./config";
import { livenessOf, type Liveness } from "./liveness";
import { quiesced } from "./switch";
import { lockKey } from "../locks/keys";
import { SALE_KEY, SKU, STOCK_KEY, TIMELINE_STREAM_TTL_S, eventStreamKey, saleCounterKeys } from "./keys";
import { announceChange } from "../live-signal";
import { StoreUnavailableError } from "../errors";
import { isLocale, type Locale } from "../i18n/locales";

export interface CurrentSale {
  readonly id: number;
  readonly sku: string;
  readonly initialStock: number;
  /** The load run this sale belongs to, if a run started it. */
  readonly runId?: number;
  /** Workshop mode: at most one order per buyer, checked under the sale's lock. */
  readonly onePerBuyer?: boolean;
  /** Workshop mode: the drop this sale is (lib/workshop/drop.ts); absent, the sale is open as usual. */
  readonly drop?: { readonly opensAt: number; readonly closedAt?: number };
  /** Workshop mode: the room's language, pinned by the instructor for this drop (every phone and the projector show it). */
  readonly locale?: Locale;
}

export interface SaleOptions {
  readonly initialStock?: number;
  readonly onePerBuyer?: boolean;
  /** Makes the sale a drop that opens at this time (ms since the epoch). */
  readonly dropOpensAt?: number;
  /** Pins the room's language while this sale is current. */
  readonly locale?: Locale;
}

export interface SaleStats extends CurrentSale, UnitAccounting, StrategySplit {
  /**
   * The strategy the sale was started under (its record in Postgres), never the one configured
   * now: a lab case's `none` sale stays `none` after the lab puts the strategy back. When the
   * strategy was switched without a new sale, `strategies` splits the orders by the strategy
   * each was made under.
   */
  readonly strategy: string;
  /** The strategy configured now: the next purchase's, which may not be the sale's. */
  readonly strategyNow: string;
  /** The most requests ever inside the critical section at once (1 for a correct lock). */
  readonly peakHolders: number;
  /** Releases that found the lock already expired or taken by another holder. */
  readonly locksLost: number;
  /** Requests inside the critical section right now. */
  readonly holdersNow: number;
  /** Stale accesses a fenced store refused (token-fencing, pg-for-update). */
  readonly staleRefused: number;
  /** Reservations the reconciler settled: units put back on the shelf, orders it recorded, give-backs that failed. */
  readonly givenBack: number;
  readonly reconciledOrders: number;
  readonly givebacksFailed: number;
  /** Buyers with more than one order in this sale (counted always; a broken rule when `onePerBuyer`). */
  readonly buyersWithTwoOrders: number;
  readonly onePerBuyer: boolean;
  /** Whether the sale is serving its buyers (./liveness.ts). */
  readonly liveness: Liveness;
  /** How long nothing has moved while buyers were turned away (ms), when stuck. */
  readonly stuckForMs?: number;
  readonly refusedSinceMoved: number;
  /**
   * PASS when no unit was sold twice, lost, or put back on the shelf after it was sold — and, in a
   * sale that allows one order per buyer, no buyer has two — and the sale is not stuck; FAIL when
   * it is dishonest; STUCK when honest but not serving.
   */
  readonly verdict: Verdict;
}

/**
 * Starts a new sale: a Sale row in Postgres, then the Redis stock and counters. Orders of earlier
 * sales stay in Postgres; every invariant is computed per sale.
 */
export async function resetSale(options: SaleOptions = {}): Promise<CurrentSale & { readonly epoch: number }> {
  const db = getDb();
  const product = await db.product.findUniqueOrThrow({ where: { sku: SKU } });
  const initialStock = options.initialStock ?? product.initialStock;
  const onePerBuyer = options.onePerBuyer ?? false;
  const { strategy } = await getConfig();
  const sale = await db.sale.create({ data: { sku: SKU, initialStock, strategy, onePerBuyer } });
  // Quiesced: a holder of the old sale must not write its stock into the new one.
  await quiesced(async () => {
    await clearLocks();
    const redis = getRedis();
    const [previousId, previousStock] = await Promise.all([redis.hget(SALE_KEY, "id"), redis.get(STOCK_KEY)]);
    if (previousId && previousStock !== null) {
      await db.sale.updateMany({ where: { id: Number(previousId), finalStock: null }, data: { finalStock: Number(previousStock) } });
    }
    const fields: Record<string, string | number> = { id: sale.id, sku: SKU, initialStock };
    if (onePerBuyer) fields.onePerBuyer = 1;
    if (options.dropOpensAt !== undefined) fields.dropOpensAt = options.dropOpensAt;
    if (options.locale !== undefined) fields.locale = options.locale;
    // The hash is replaced whole: a drop, a rule or a pinned language of the previous sale must not carry over.
    const multi = redis.multi().set(STOCK_KEY, initialStock).del(SALE_KEY).hset(SALE_KEY, fields);
    // The replaced sale's holder timeline and counters stay readable for a day (a run keeps its
    // own figures and timeline in Postgres), then go. Its reservations stay until the reconciler
    // has settled them: the hash goes by itself with its last field.
    if (previousId) {
      const { pending: _settledByTheReconciler, ...counters } = saleCounterKeys(Number(previousId));
      for (const key of [eventStreamKey(Number(previousId)), ...Object.values(counters)]) multi.expire(key, TIMELINE_STREAM_TTL_S);
    }
    await multi.exec();
  });
  const { epoch } = await getActiveConfig();
  announceChange();
  return {
    id: sale.id, sku: SKU, initialStock, epoch, onePerBuyer,
    ...(options.dropOpensAt === undefined ? {} : { drop: { opensAt: options.dropOpensAt } }),
    ...(options.locale === undefined ? {} : { locale: options.locale }),
  };
}

/**
 * A new sale starts with no lock held: one left by a holder that crashed (a lock with no expiry
 * never goes away by itself) is deleted on every node that answers.
 */
export async function clearLocks(): Promise<void> {
  // redis-semaphore's Mutex and RedlockMutex (the peer-semaphore-… strategies) prefix our key with `mutex:`.
  await Promise.allSettled(getRedisNodes().map((node) => node.del(lockKey(SKU), `mutex:${lockKey(SKU)}`)));
}

export async function getCurrentSale(): Promise<CurrentSale> {
  const stored = await getRedis().hgetall(SALE_KEY);
  if (stored.id) {
    return {
      id: Number(stored.id),
      sku: stored.sku ?? SKU,
      initialStock: Number(stored.initialStock),
      ...(stored.runId ? { runId: Number(stored.runId) } : {}),
      onePerBuyer: stored.onePerBuyer === "1",
      ...(stored.dropOpensAt
        ? { drop: { opensAt: Number(stored.dropOpensAt), ...(stored.dropClosedAt ? { closedAt: Number(stored.dropClosedAt) } : {}) } }
        : {}),
      ...(isLocale(stored.locale) ? { locale: stored.locale } : {}),
    };
  }
  // Redis lost its data (a restart without persistence): the last sale in Postgres is the current one.
  const latest = await getDb().sale.findFirst({ where: { sku: SKU }, orderBy: { id: "desc" } });
  if (!latest) return resetSale();
  return { id: latest.id, sku: latest.sku, initialStock: latest.initialStock, onePerBuyer: latest.onePerBuyer };
}

export async function getStock(): Promise<number> {
  return Number((await getRedis().get(STOCK_KEY)) ?? 0);
}

/** Marks the current sale as belonging to a load run, so its orders carry the run's id. */
export async function tagSaleWithRun(saleId: number, runId: number): Promise<void> {
  const redis = getRedis();
  if (Number(await redis.hget(SALE_KEY, "id")) === saleId) await redis.hset(SALE_KEY, { runId });
}

/**
 * The accounting of the current sale, or of an earlier one by id: counted per unit from the
 * orders in Postgres, the Redis stock and the reservations still pending (see ./accounting.ts,
 * "Reading a live sale", for why the three reads come in this order and none of them together).
 * An earlier sale is counted with the stock it was left with when the next one replaced it.
 */
export async function getSaleStats(saleId?: number): Promise<SaleStats> {
  for (let attempt = 1; attempt <= 3; attempt += 1) {
    const stats = await readSaleStats(saleId);
    if (stats) return stats;
  }
  throw new StoreUnavailableError("the sale was reset three times while its figures were read; ask again");
}

/**
 * One reading of getSaleStats, or undefined when the current sale was replaced between its reads:
 * the old sale's orders counted against the new sale's full stock read as every unit phantom — a
 * FAIL flashed on the projector for a sale that sold nothing twice.
 */
async function readSaleStats(saleId?: number): Promise<SaleStats | undefined> {
  const [current, config] = await Promise.all([getCurrentSale(), getConfig()]);
  const past = saleId === undefined || saleId === current.id ? undefined : await getPastSale(saleId);
  const sale: CurrentSale = past ?? current;
  const keys = saleCounterKeys(sale.id);
  const redis = getRedis();
  // 1. The stock and the reservations, at one instant.
  const before = await redis.multi().get(STOCK_KEY).hvals(keys.pending).hget(SALE_KEY, "id").exec();
  const [stockBefore, pendingBefore, currentBefore] = execValues<[string | null, string[], string | null]>(before);
  // 2. The orders, in one statement: one snapshot of them.
  // Grouped by strategy and unit: the sale's own strategy comes from the same snapshot.
  const { rows } = await getPool().query<{ units: StrategyUnitCount[] | null; repeat_buyers: number; strategy: string | null }>(
    `WITH sold AS (SELECT id, stock_seen, buyer, strategy FROM orders WHERE sale_id = $1 AND status = 'sold')
     SELECT (SELECT json_agg(json_build_array(strategy, stock_seen, n, first_id))
               FROM (SELECT strategy, stock_seen, count(*)::int AS n, min(id) AS first_id FROM sold GROUP BY strategy, stock_seen) AS u) AS units,
            (SELECT count(*)::int FROM (SELECT buyer FROM sold GROUP BY buyer HAVING count(*) > 1) AS b) AS repeat_buyers,
            (SELECT strategy FROM sales WHERE id = $1) AS strategy`,
    [sale.id],
  );
  const counts = (rows[0]?.units ?? []).map(([strategy, unit, orders, first]) => [String(strategy), Number(unit), Number(orders), Number(first)] as const);
  // 3. The stock again, with the counters and the reservations recorded since (1).
  const after = await redis.multi()
    .mget(STOCK_KEY, keys.peak, keys.lockLost, keys.staleRefused, keys.givenBack, keys.reconciled, keys.givebackFailed)
    .hvals(keys.pending)
    .hvals(keys.holders)
    .hgetall(keys.liveness)
    .time()
    .hget(SALE_KEY, "id")
    .exec();
  const [values, pendingAfter, holders, streak, [seconds, micros], currentAfter] =
    execValues<[(string | null)[], string[], string[], Record<string, string>, [string, string], string | null]>(after);
  // (No sale hash at all is Redis having lost its data, not a new sale: the sale is Postgres' last.)
  const replaced = (id: string | null) => id !== null && Number(id) !== sale.id;
  if (!past && (replaced(currentBefore) || replaced(currentAfter))) return undefined;
  const [stock, peak, lockLost, staleRefused, givenBack, reconciled, givebackFailed] = values.map((value) => Number(value ?? 0)) as [
    number, number, number, number, number, number, number,
  ];
  const accounting = countUnits({
    initialStock: sale.initialStock,
    unitCounts: unitCountsOf(counts),
    remaining: past ? (past.finalStock ?? 0) : stock,
    ...(past ? {} : { stockBefore: Number(stockBefore ?? 0) }),
    pendingUnits: [...pendingBefore, ...pendingAfter].flatMap((raw) => {
      const unit = Number((JSON.parse(raw) as { unit?: unknown }).unit);
      return Number.isInteger(unit) ? [unit] : [];
    }),
  });
  const buyersWithTwoOrders = Number(rows[0]?.repeat_buyers ?? 0);
  const onePerBuyer = sale.onePerBuyer === true;
  const honest = verdictOf(accounting) === "PASS" && !(onePerBuyer && buyersWithTwoOrders > 0);
  // An earlier sale is over: whether it served is its run's story, not a state it is in now.
  const alive = past
    ? ({ liveness: "live", refusedSinceMoved: 0 } as const)
    : livenessOf(streak, stock, Number(seconds) * 1000 + Math.floor(Number(micros) / 1000), config.waitTimeoutMs);
  return {
    id: sale.id,
    sku: sale.sku,
    ...(sale.runId === undefined ? {} : { runId: sale.runId }),
    ...accounting,
    ...splitByStrategy(sale.initialStock, counts),
    strategy: rows[0]?.strategy ?? config.strategy,
    strategyNow: config.strategy,
    peakHolders: peak,
    locksLost: lockLost,
    holdersNow: holders.reduce((sum, count) => sum + Number(count), 0),
    staleRefused,
    givenBack,
    reconciledOrders: reconciled,
    givebacksFailed: givebackFailed,
    buyersWithTwoOrders,
    onePerBuyer,
    ...alive,
    verdict: !honest ? "FAIL" : alive.liveness === "stuck" ? "STUCK" : "PASS",
  };
}

/** The replies of a MULTI, or its first error: a transaction that failed counts nothing. */
function execValues<T extends unknown[]>(replies: [Error | null, unknown][] | null): T {
  if (!replies) throw new Error("the Redis transaction was aborted");
  return replies.map(([error, value]) => {
    if (error) throw error;
    return value;
  }) as T;
}

async function getPastSale(saleId: number): Promise<CurrentSale & { readonly finalStock: number | null }> {
  const sale = await getDb().sale.findUniqueOrThrow({ where: { id: saleId } });
  return { id: sale.id, sku: sale.sku, initialStock: sale.initialStock, finalStock: sale.finalStock, onePerBuyer: sale.onePerBuyer };
}
