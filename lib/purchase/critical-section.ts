import type Redis from "ioredis";
import { CONFIG_KEY, PENDING_SALES_KEY, SALE_KEY, STOCK_KEY, saleCounterKeys } from "../sale/keys";
import { eventStreamKey } from "../sale/keys";
import { ALREADY_BOUGHT, REFUSED_STALE, REFUSED_SWITCH, scripts } from "./critical-section-scripts";

/**
 * The critical section's Redis side, measured. Entering counts the holders inside (per instance,
 * so an instance that crashed mid-section can clear its own count on restart) keeping the peak,
 * and reads the stock; leaving writes the new stock, if any, and counts the holder out.
 * The stock write stays a blind `SET stock−1` of a value read earlier, exactly the
 * read-modify-write the lock must protect: fusing the counters saves round trips, not honesty.
 *
 * Two guards ride along in the same scripts, at no extra round trip:
 * - the write that takes a unit also records a *reservation* (which unit, for whom) in the sale's
 *   pending hash, so a crash between the stock write and the order insert leaves a record the
 *   reconciler settles (lib/purchase/reconciler.ts);
 * - every access carries the config epoch the buyer started under: a switch of strategy or knobs,
 *   or a sale reset, drains the holders inside and bumps the epoch (lib/sale/switch.ts), so a
 *   holder of the old lock can neither enter nor write beside a holder of the new one.
 * The Lua itself is in critical-section-scripts.ts.
 */

/** Who a unit is reserved for: recorded with the stock write, read back by the reconciler. */
export interface ReservationMeta {
  readonly id: string;
  readonly buyer: string;
  readonly instance: string;
  readonly strategy: string;
  readonly runId: number | null;
}

/** A purchase's id in the sale's event stream (the holder timeline): the first characters of its reservation's. */
export const holderOf = (reservationId: string) => reservationId.slice(0, 8);

/** A reservation as the pending hash keeps it. */
export interface PendingEntry extends ReservationMeta {
  readonly unit: number;
  /** Redis time (ms) of the stock write. */
  readonly at: number;
  readonly state: "pending" | "settling";
}

/** The JSON the scripts close with the time and state; `unit` is added by the atomic script itself. */
function reservationPrefix(meta: ReservationMeta, unit?: number): string {
  const fields = JSON.stringify({ buyer: meta.buyer, instance: meta.instance, strategy: meta.strategy, runId: meta.runId, ...(unit === undefined ? {} : { unit }) });
  return fields.slice(0, -1);
}

export type EntryRefusal = "stale" | "switching";

export type LeaveResult = "written" | EntryRefusal;

export interface CriticalSection {
  /** The stock read on entry, or why the store refused this holder. */
  readonly stock: number | EntryRefusal;
  /**
   * Counts the holder out and, given `newStock`, writes it — recording `reservation` for the unit
   * just taken when one is given, and marking `buyer` (one order per buyer) when one is given, in
   * the same step: no write, no mark. Resolves with whether the write landed.
   */
  leave(newStock?: number, reservation?: ReservationMeta, buyer?: string): Promise<LeaveResult>;
}

export interface EnterOptions {
  readonly saleId: number;
  readonly instance: string;
  readonly epoch: number;
  readonly fencingToken?: number;
  /** The holder's id on the timeline; absent: the reads and writes are not recorded. */
  readonly holder?: string;
}

const refusal = (answer: number): EntryRefusal | undefined =>
  answer === REFUSED_STALE ? "stale" : answer === REFUSED_SWITCH ? "switching" : undefined;

/**
 * Enters the critical section: counts the holder in and reads the stock. With a fencing token
 * the store checks it on the read and on the write (see ENTER_FENCED / LEAVE_FENCED).
 */
export async function enterCriticalSection(redis: Redis, options: EnterOptions): Promise<CriticalSection> {
  const { saleId, instance, fencingToken } = options;
  const epoch = String(options.epoch);
  const keys = saleCounterKeys(saleId);
  const events = eventStreamKey(saleId);
  const holder = options.holder ?? "";
  const run = scripts(redis);
  const writeArgs = (newStock: number | undefined, reservation: ReservationMeta | undefined, unit: number) =>
    [newStock === undefined ? "" : String(newStock), epoch, reservation?.id ?? "", reservation ? reservationPrefix(reservation, unit) : "", String(saleId)] as const;
  const marked = (newStock: number | undefined, buyer: string | undefined) => (newStock === undefined ? "" : buyer ?? "");
  const landed = (answer: number): LeaveResult => (answer === 1 ? "written" : answer === REFUSED_SWITCH ? "switching" : "stale");

  if (fencingToken === undefined) {
    const read = await run.enterCriticalSection(keys.holders, keys.peak, STOCK_KEY, CONFIG_KEY, events, instance, epoch, holder);
    const refused = refusal(read);
    if (refused) return { stock: refused, leave: async () => refused };
    return {
      stock: read,
      leave: async (newStock, reservation, buyer) =>
        landed(await run.leaveCriticalSection(
          keys.holders, STOCK_KEY, CONFIG_KEY, keys.pending, PENDING_SALES_KEY, events, keys.buyers,
          instance, ...writeArgs(newStock, reservation, read), holder, marked(newStock, buyer),
        )),
    };
  }
  const read = await run.enterFenced(keys.holders, keys.peak, STOCK_KEY, CONFIG_KEY, keys.fence, keys.staleRefused, events, instance, epoch, fencingToken, holder);
  const refused = refusal(read);
  if (refused) return { stock: refused, leave: async () => refused };
  return {
    stock: read,
    leave: async (newStock, reservation, buyer) =>
      landed(await run.leaveFenced(
        keys.holders, STOCK_KEY, CONFIG_KEY, keys.pending, PENDING_SALES_KEY, keys.fence, keys.staleRefused, keys.fenceLog, events, keys.buyers,
        instance, ...writeArgs(newStock, reservation, read), fencingToken, holder, marked(newStock, buyer),
      )),
  };
}

/** Forgets the holders an instance had inside when it died: called when that instance starts. */
export async function clearInstanceHolders(redis: Redis, saleId: number, instance: string): Promise<void> {
  await redis.hdel(saleCounterKeys(saleId).holders, instance);
}

export type AtomicTake = { readonly stockSeen: number; readonly stockLeft: number } | "sold-out" | "switching" | "already-bought";

/**
 * Takes one unit with no lock, reserving it for `reservation`; `holder` records it on the timeline.
 * Given `onePerBuyer`, refuses a buyer who already has an order in the sale and marks the buyer
 * with the unit, in the same atomic step.
 */
export async function takeUnitAtomically(
  redis: Redis, saleId: number, epoch: number, reservation: ReservationMeta, holder = "", onePerBuyer = "",
): Promise<AtomicTake> {
  const keys = saleCounterKeys(saleId);
  const left = await scripts(redis).takeUnitAtomically(
    keys.peak, STOCK_KEY, CONFIG_KEY, keys.pending, PENDING_SALES_KEY, eventStreamKey(saleId), keys.buyers,
    String(epoch), reservation.id, reservationPrefix(reservation), saleId, holder, reservation.instance, onePerBuyer,
  );
  if (left === REFUSED_SWITCH) return "switching";
  if (left === ALREADY_BOUGHT) return "already-bought";
  return left < 0 ? "sold-out" : { stockSeen: left + 1, stockLeft: left };
}

export type GiveBackResult = "given-back" | "stock-moved" | "not-settling" | "stale" | "switching" | "not-current";

/** Puts a reserved unit back on the shelf as itself (see GIVE_BACK_UNIT); run under the sale's lock. */
export async function giveBackUnit(
  redis: Redis,
  saleId: number,
  entry: { readonly id: string; readonly unit: number; readonly buyer?: string },
  epoch: number,
  fencingToken?: number,
  recordAs?: { readonly holder: string; readonly instance: string },
): Promise<GiveBackResult> {
  const keys = saleCounterKeys(saleId);
  const answer = await scripts(redis).giveBackUnit(
    STOCK_KEY, keys.pending, CONFIG_KEY, keys.fence, SALE_KEY, eventStreamKey(saleId), keys.buyers,
    entry.id, entry.unit, String(epoch), fencingToken === undefined ? "" : String(fencingToken), String(saleId),
    recordAs?.holder ?? "", recordAs?.instance ?? "", entry.buyer ?? "",
  );
  switch (answer) {
    case 1:
      return "given-back";
    case 0:
      return "stock-moved";
    case -1:
      return "stale";
    case -2:
      return "switching";
    case -4:
      return "not-current";
    default:
      return "not-settling";
  }
}
