import { getPool } from "../db";
import { getRedis, getSubscriber } from "../redis";
import { getActiveConfig } from "../sale/config";
import { STOCK_KEY, saleCounterKeys } from "../sale/keys";
import { getCurrentSale, getSaleStats } from "../sale/sale";
import { ANNOUNCE_EVERY_MS, LIVE_CHANNEL } from "./announce";
import { countJoined, getBuyerNames, isHumanBuyer } from "./buyers";
import { dropOf, type DropView } from "./drop";

/**
 * What the live pages show (workshop mode), built once per change per instance and sent to every
 * subscriber of that instance: the store's phones get the public part, the projector the
 * accounting too. Changes arrive over Redis pub/sub (./announce.ts), so a purchase served by
 * one instance updates the pages connected to the other.
 */
export interface Winner {
  readonly name: string;
  readonly unit: number;
  /** Another order carries the same unit: sold twice. */
  readonly twice: boolean;
}

export interface LiveSnapshot {
  readonly saleId: number;
  readonly stock: number;
  readonly initialStock: number;
  readonly strategy: string;
  readonly workMs: number;
  /** Buyers inside the critical section right now, every instance. */
  readonly holdersNow: number;
  readonly onePerBuyer: boolean;
  readonly drop: DropView;
  /** The server's clock when the snapshot was built: phones count down against it, not their own. */
  readonly serverNow: number;
  readonly joined: number;
  /** Once a drop is open: the people who got a unit (in order), and how many other orders (load runs) there are. */
  readonly winners?: { readonly people: readonly Winner[]; readonly others: number };
}

export interface AdminLiveSnapshot extends LiveSnapshot {
  readonly accounting: {
    readonly orders: number;
    readonly distinctUnits: number;
    readonly doubleSold: number;
    readonly lostUnits: number;
    readonly pendingUnits: number;
    readonly oversell: number;
    readonly buyersWithTwoOrders: number;
    readonly peakHolders: number;
    readonly verdict: string;
  };
}

/** Orders a who-got-one list reads at most. */
const WINNERS_READ = 500;

async function getWinners(saleId: number): Promise<LiveSnapshot["winners"]> {
  const { rows } = await getPool().query<{ buyer: string; unit: number }>(
    "SELECT buyer, stock_seen AS unit FROM orders WHERE sale_id = $1 AND status = 'sold' ORDER BY id LIMIT $2",
    [saleId, WINNERS_READ],
  );
  const perUnit = new Map<number, number>();
  for (const row of rows) perUnit.set(row.unit, (perUnit.get(row.unit) ?? 0) + 1);
  const names = await getBuyerNames(rows.map((row) => row.buyer));
  const people = rows
    .filter((row) => isHumanBuyer(row.buyer))
    .map((row) => ({ name: names.get(row.buyer) ?? "someone", unit: Number(row.unit), twice: (perUnit.get(row.unit) ?? 0) > 1 }));
  return { people, others: rows.length - people.length };
}

export async function getLiveSnapshot(): Promise<LiveSnapshot> {
  const redis = getRedis();
  const [sale, config, stock, joined] = await Promise.all([getCurrentSale(), getActiveConfig(), redis.get(STOCK_KEY), countJoined()]);
  const holders = await redis.hvals(saleCounterKeys(sale.id).holders);
  const drop = dropOf(sale);
  return {
    saleId: sale.id,
    stock: Number(stock ?? 0),
    initialStock: sale.initialStock,
    strategy: config.strategy,
    workMs: config.workMs,
    holdersNow: holders.reduce((sum, count) => sum + Number(count), 0),
    onePerBuyer: sale.onePerBuyer === true,
    drop,
    serverNow: Date.now(),
    joined,
    ...(drop.state === "open" || drop.state === "closed" ? { winners: await getWinners(sale.id) } : {}),
  };
}

export async function getAdminLiveSnapshot(base?: LiveSnapshot): Promise<AdminLiveSnapshot> {
  const snapshot = base ?? (await getLiveSnapshot());
  const stats = await getSaleStats(snapshot.saleId);
  return {
    ...snapshot,
    accounting: {
      orders: stats.orders,
      distinctUnits: stats.distinctUnits,
      doubleSold: stats.doubleSold,
      lostUnits: stats.lostUnits,
      pendingUnits: stats.pendingUnits,
      oversell: stats.oversell,
      buyersWithTwoOrders: stats.buyersWithTwoOrders,
      peakHolders: stats.peakHolders,
      verdict: stats.verdict,
    },
  };
}

type Listener = (snapshot: LiveSnapshot) => void;

interface Hub {
  readonly people: Set<Listener>;
  readonly admins: Set<Listener>;
  subscribed: boolean;
  lastAt: number;
  trailing?: NodeJS.Timeout;
}

// On globalThis: Next may load this module in more than one bundle, and there must be one hub.
const globalForHub = globalThis as unknown as { lockLabLiveHub?: Hub };

function hub(): Hub {
  globalForHub.lockLabLiveHub ??= { people: new Set(), admins: new Set(), subscribed: false, lastAt: 0 };
  return globalForHub.lockLabLiveHub;
}

async function broadcast(): Promise<void> {
  const h = hub();
  h.lastAt = Date.now();
  if (h.people.size === 0 && h.admins.size === 0) return;
  try {
    const snapshot = await getLiveSnapshot();
    for (const listener of h.people) listener(snapshot);
    if (h.admins.size) {
      const full = await getAdminLiveSnapshot(snapshot);
      for (const listener of h.admins) listener(full);
    }
  } catch {
    // A backing server is down: the pages keep their last snapshot, and the next change tries again.
  }
}

/** A change was announced: one snapshot for every subscriber, at most one per ANNOUNCE_EVERY_MS. */
function refreshSoon(): void {
  const h = hub();
  if (h.trailing) return;
  const wait = Math.max(0, h.lastAt + ANNOUNCE_EVERY_MS - Date.now());
  h.trailing = setTimeout(() => {
    h.trailing = undefined;
    void broadcast();
  }, wait);
}

function ensureSubscribed(): void {
  const h = hub();
  if (h.subscribed) return;
  h.subscribed = true;
  const subscriber = getSubscriber(0);
  subscriber.on("message", (channel: string) => {
    if (channel === LIVE_CHANNEL) refreshSoon();
  });
  subscriber.subscribe(LIVE_CHANNEL).catch(() => {
    h.subscribed = false;
  });
}

/** Calls `listener` with a snapshot after every change until the returned function is called. */
export function watchLive(listener: Listener, admin: boolean): () => void {
  ensureSubscribed();
  const set = admin ? hub().admins : hub().people;
  set.add(listener);
  return () => void set.delete(listener);
}
