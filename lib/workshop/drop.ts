import { AppError } from "../errors";
import { getRedis } from "../redis";
import { redisScript, runScript } from "../redis-script";
import { SALE_KEY } from "../sale/keys";
import { getCurrentSale, resetSale, type CurrentSale } from "../sale/sale";
import { updateConfig } from "../sale/config";
import type { DropCreate } from "../validations/workshop";
import { announceChange } from "../live-signal";

/**
 * Starting and closing a drop (workshop mode); the rule every purchase meets is in
 * lib/sale/rules/drop.ts.
 */
const CLOSE_IF_CURRENT = redisScript(`
-- KEYS[1]: the sale hash; ARGV[1]: the sale id the caller read; ARGV[2]: now (ms)
if redis.call('HGET', KEYS[1], 'id') == ARGV[1] then return redis.call('HSETNX', KEYS[1], 'dropClosedAt', ARGV[2]) end
return 0
`, 1);

export class NoDropError extends AppError {
  override name = "NoDropError";
  readonly status = 409;
  readonly code = "no_drop";
  constructor() {
    super("no drop is running: start one first");
  }
}

/**
 * Starts a drop: the strategy and work the instructor chose (quiesced, as every switch), then a new
 * sale of `stock` units that opens after the countdown, in the room's language when one is pinned
 * (kept in the sale's hash with the drop, so it ends with the sale).
 */
export async function startDrop(input: DropCreate): Promise<CurrentSale> {
  const { stock, countdownS, onePerBuyer, strategy, workMs, locale } = input;
  if (strategy !== undefined || workMs !== undefined) await updateConfig({ strategy, workMs });
  return resetSale({ initialStock: stock, onePerBuyer, dropOpensAt: Date.now() + countdownS * 1000, ...(locale ? { locale } : {}) });
}

/** Closes the current sale's drop: buyers get `409 drop_closed` from now on. */
export async function closeDrop(): Promise<CurrentSale> {
  const sale = await getCurrentSale();
  if (!sale.drop) throw new NoDropError();
  if (sale.drop.closedAt === undefined) {
    // Only if the sale is still the one read, in one step: a drop started meanwhile stays open.
    await runScript(getRedis(), CLOSE_IF_CURRENT, [SALE_KEY], [sale.id, Date.now()]);
    announceChange();
  }
  return getCurrentSale();
}
