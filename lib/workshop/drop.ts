import { AppError } from "../errors";
import { getRedis } from "../redis";
import { SALE_KEY } from "../sale/keys";
import { getCurrentSale, resetSale, type CurrentSale } from "../sale/sale";
import { updateConfig } from "../sale/config";
import type { DropCreate } from "../validations/workshop";
import { announceChange } from "./announce";

/**
 * A drop (workshop mode): a sale that opens for everyone at one moment, after a countdown every
 * phone shows. Its state lives in the sale's Redis hash, which every purchase already reads, so
 * all instances agree on it at no extra round trip: scheduled until `opensAt`, then open, closed
 * once the instructor closes it. A sale with no drop is open as always (load runs, the lab).
 */
export type DropState = "none" | "scheduled" | "open" | "closed";

const CLOSE_IF_CURRENT = `
-- KEYS[1]: the sale hash; ARGV[1]: the sale id the caller read; ARGV[2]: now (ms)
if redis.call('HGET', KEYS[1], 'id') == ARGV[1] then return redis.call('HSETNX', KEYS[1], 'dropClosedAt', ARGV[2]) end
return 0
`;

export interface DropView {
  readonly state: DropState;
  readonly opensAt?: number;
  readonly closedAt?: number;
}

export function dropOf(sale: Pick<CurrentSale, "drop">, now = Date.now()): DropView {
  const drop = sale.drop;
  if (!drop) return { state: "none" };
  const state: DropState = drop.closedAt !== undefined ? "closed" : now < drop.opensAt ? "scheduled" : "open";
  return { state, ...drop };
}

export class DropNotOpenError extends AppError {
  override name = "DropNotOpenError";
  readonly status = 409;
  readonly code = "drop_not_open";
  override readonly ruleRefusal = true;
  override readonly retryAfterS: number;
  override readonly details: Readonly<Record<string, unknown>>;
  constructor(opensAt: number, now: number) {
    const inMs = Math.max(0, opensAt - now);
    super(`the drop opens in ${Math.ceil(inMs / 1000)} s; the Buy button wakes when the countdown reaches zero`);
    this.retryAfterS = Math.max(1, Math.ceil(inMs / 1000));
    this.details = { opensAt: new Date(opensAt).toISOString(), opensInMs: inMs };
  }
}

export class DropClosedError extends AppError {
  override name = "DropClosedError";
  readonly status = 409;
  readonly code = "drop_closed";
  override readonly ruleRefusal = true;
  constructor() {
    super("this drop is closed; wait for the instructor to start the next one");
  }
}

export class NoDropError extends AppError {
  override name = "NoDropError";
  readonly status = 409;
  readonly code = "no_drop";
  constructor() {
    super("no drop is running: start one first");
  }
}

/** Refuses a purchase while the sale's drop is not open; a sale with no drop passes. */
export function assertDropOpen(sale: Pick<CurrentSale, "drop">, now = Date.now()): void {
  const drop = dropOf(sale, now);
  if (drop.state === "scheduled") throw new DropNotOpenError(drop.opensAt as number, now);
  if (drop.state === "closed") throw new DropClosedError();
}

/**
 * Starts a drop: the strategy and work the instructor chose (quiesced, as every switch), then a new
 * sale of `stock` units that opens after the countdown.
 */
export async function startDrop(input: DropCreate): Promise<CurrentSale> {
  const { stock, countdownS, onePerBuyer, strategy, workMs } = input;
  if (strategy !== undefined || workMs !== undefined) await updateConfig({ strategy, workMs });
  return resetSale({ initialStock: stock, onePerBuyer, dropOpensAt: Date.now() + countdownS * 1000 });
}

/** Closes the current sale's drop: buyers get `409 drop_closed` from now on. */
export async function closeDrop(): Promise<CurrentSale> {
  const sale = await getCurrentSale();
  if (!sale.drop) throw new NoDropError();
  if (sale.drop.closedAt === undefined) {
    // Only if the sale is still the one read, in one step: a drop started meanwhile stays open.
    await getRedis().eval(CLOSE_IF_CURRENT, 1, SALE_KEY, sale.id, Date.now());
    announceChange();
  }
  return getCurrentSale();
}
