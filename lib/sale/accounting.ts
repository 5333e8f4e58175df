/**
 * The unit-level accounting of a sale, from the durable record: the unit every order carries
 * (`orders.stock_seen`: the stock the buyer read is the unit they were sold), the Redis stock, and
 * the reservations still waiting for their order. Units of a sale are numbered 1..initial; a stock
 * of `s` means units 1..s are on the shelf.
 *
 * Never a residual: `initial − orders − remaining` reads 0 when one unit is sold twice and another
 * is lost, and 0 in any sale that does not sell out however many units were sold twice.
 */
export interface UnitAccounting {
  readonly initialStock: number;
  /** Orders recorded (status 'sold'). */
  readonly orders: number;
  /** Distinct units in 1..initial that carry at least one order. */
  readonly distinctUnits: number;
  /** orders − distinct units sold: every order beyond the first of its unit, and every order outside 1..initial. */
  readonly doubleSold: number;
  /** Orders whose unit is outside 1..initial (a unit that never existed). */
  readonly outOfRange: number;
  /** The Redis stock now. */
  readonly remaining: number;
  /** Units taken from the stock whose order is not recorded yet (the reconciler settles them). */
  readonly pendingUnits: number;
  /** Units of 1..initial neither sold, nor on the shelf, nor pending: gone with no order. */
  readonly lostUnits: number;
  /** Units on the shelf that cannot be there: already sold, or above the initial stock. */
  readonly phantomUnits: number;
  /** orders − initial: positive when more was sold than existed, never clamped. */
  readonly oversell: number;
}

export interface UnitRecord {
  readonly initialStock: number;
  /** Orders per unit: [unit, how many orders carry it]. */
  readonly unitCounts: readonly (readonly [unit: number, orders: number])[];
  /** The stock read *after* the orders. */
  readonly remaining: number;
  /**
   * Units held by reservations whose order is not recorded yet: those read *before* the orders
   * (and any read after them).
   */
  readonly pendingUnits: readonly number[];
  /**
   * The stock read *before* the orders, together with the pending units (a live sale; see
   * "Reading a live sale" below). @default remaining (a sale at rest: one reading)
   */
  readonly stockBefore?: number;
}

/*
 * Reading a live sale. A unit moves shelf → reserved → sold (its order commits, then its
 * reservation is forgotten), or shelf → reserved → shelf (the reconciler gives it back: stock and
 * reservation change in one Redis script). No single read spans Redis and Postgres, so the sale
 * is read in three steps, each atomic on its own:
 *   1. Redis: the stock and the reservations, in one MULTI (`stockBefore`, `pendingUnits`);
 *   2. Postgres: the orders, in one statement (one snapshot);
 *   3. Redis: the stock again (`remaining`).
 * Each figure comes from the reading that makes it exact:
 * - sold and sold twice come from (2) alone: orders are only ever added;
 * - lost: at (1) every unit was on the shelf (≤ stockBefore), reserved (pending at (1)) or
 *   sold (its order committed before (1), so it is an order at (2)); a unit in none of them was
 *   really gone. Reading the stock only after the orders would count a unit taken and recorded
 *   between the two reads as lost.
 * - phantom: a unit sold at (2) and on the shelf at (3) was put back *after* its order
 *   committed, which no honest path does (a give-back only follows a tombstone, never an order).
 *   Reading the stock before the orders would count a unit bought in between as phantom.
 */

export function countUnits(record: UnitRecord): UnitAccounting {
  const { initialStock, remaining } = record;
  const stockBefore = record.stockBefore ?? remaining;
  const inRange = (unit: number) => Number.isInteger(unit) && unit >= 1 && unit <= initialStock;
  let orders = 0;
  let outOfRange = 0;
  const sold = new Set<number>();
  for (const [unit, count] of record.unitCounts) {
    orders += count;
    if (inRange(unit)) sold.add(unit);
    else outOfRange += count;
  }
  const shelfTop = Math.min(Math.max(remaining, 0), initialStock);
  // A unit on the shelf at either stock reading was not lost at the first (see above).
  const shelvedTop = Math.min(Math.max(remaining, stockBefore, 0), initialStock);
  const pending = new Set(record.pendingUnits.filter((unit) => inRange(unit) && !sold.has(unit) && unit > shelvedTop));
  let lostUnits = 0;
  for (let unit = shelvedTop + 1; unit <= initialStock; unit++) {
    if (!sold.has(unit) && !pending.has(unit)) lostUnits++;
  }
  let soldOnShelf = 0;
  for (const unit of sold) if (unit <= shelfTop) soldOnShelf++;
  return {
    initialStock,
    orders,
    distinctUnits: sold.size,
    doubleSold: orders - sold.size,
    outOfRange,
    remaining,
    pendingUnits: pending.size,
    lostUnits,
    phantomUnits: soldOnShelf + Math.max(0, remaining - initialStock),
    oversell: orders - initialStock,
  };
}

/**
 * PASS: honest and serving. FAIL: a unit sold twice, lost or phantom (whatever else holds).
 * STUCK: honest, but buyers are being turned away with stock left and nothing moving (see
 * ./liveness.ts) — a safe lock that stops serving is never shown as PASS.
 */
export type Verdict = "PASS" | "FAIL" | "STUCK";

/**
 * Whether the stock stayed honest: no unit sold twice, none lost, none back on the shelf after it
 * was sold. A safe strategy fails on any of these, whatever its peak holders or throughput say.
 */
export function verdictOf(accounting: Pick<UnitAccounting, "doubleSold" | "lostUnits" | "phantomUnits">): "PASS" | "FAIL" {
  return accounting.doubleSold === 0 && accounting.lostUnits === 0 && accounting.phantomUnits === 0 ? "PASS" : "FAIL";
}

/**
 * One strategy's part of a sale whose orders were made under more than one (the strategy was
 * switched without starting a new sale). Sold twice counts only units sold twice under this
 * strategy alone; a unit sold under two strategies is neither's to carry (`soldUnderSeveral`).
 */
export interface StrategyShare {
  readonly strategy: string;
  readonly orders: number;
  /** Distinct units in 1..initial this strategy's orders carry. */
  readonly distinctUnits: number;
  /** This strategy's orders beyond the first of each unit it sold, and its orders outside 1..initial. */
  readonly doubleSold: number;
}

export interface StrategySplit {
  /** In the order each strategy sold its first unit. */
  readonly strategies: readonly StrategyShare[];
  /**
   * Orders beyond the first of units sold under more than one strategy: with the strategies'
   * own `doubleSold`, these add up to the sale's `doubleSold`.
   */
  readonly soldUnderSeveral: number;
}

/** One group of a sale's orders: how many orders `strategy` made for `unit`, and the first one's id. */
export type StrategyUnitCount = readonly [strategy: string, unit: number, orders: number, firstOrderId: number];

/**
 * Splits a sale's orders by the strategy each was made under, so no figure is shown under a
 * strategy that did not make it: a `none` sale's double sales stay `none`'s after the strategy is
 * switched to a safe one.
 */
export function splitByStrategy(initialStock: number, counts: readonly StrategyUnitCount[]): StrategySplit {
  const inRange = (unit: number) => Number.isInteger(unit) && unit >= 1 && unit <= initialStock;
  const byStrategy = new Map<string, { orders: number; units: Set<number>; first: number }>();
  const strategiesOfUnit = new Map<number, Set<string>>();
  for (const [strategy, unit, orders, firstOrderId] of counts) {
    const share = byStrategy.get(strategy) ?? { orders: 0, units: new Set<number>(), first: firstOrderId };
    share.orders += orders;
    share.first = Math.min(share.first, firstOrderId);
    if (inRange(unit)) {
      share.units.add(unit);
      strategiesOfUnit.set(unit, (strategiesOfUnit.get(unit) ?? new Set()).add(strategy));
    }
    byStrategy.set(strategy, share);
  }
  let soldUnderSeveral = 0;
  for (const strategies of strategiesOfUnit.values()) soldUnderSeveral += strategies.size - 1;
  const strategies = [...byStrategy]
    .sort(([, a], [, b]) => a.first - b.first)
    .map(([strategy, share]) => ({ strategy, orders: share.orders, distinctUnits: share.units.size, doubleSold: share.orders - share.units.size }));
  return { strategies, soldUnderSeveral };
}

/** Orders per unit, all strategies together (what countUnits takes). */
export function unitCountsOf(counts: readonly StrategyUnitCount[]): [unit: number, orders: number][] {
  const perUnit = new Map<number, number>();
  for (const [, unit, orders] of counts) perUnit.set(unit, (perUnit.get(unit) ?? 0) + orders);
  return [...perUnit];
}
