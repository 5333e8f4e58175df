import { getPool } from "../db";
import { getRedis, getSubscriber } from "../redis";
import { getActiveConfig } from "../sale/config";
import { STOCK_KEY, saleCounterKeys } from "../sale/keys";
import { getCurrentSale, getSaleStats, type SaleStats } from "../sale/sale";
import { ANNOUNCE_EVERY_MS, LIVE_CHANNEL } from "../live-signal";
import { HUMAN_PREFIX, countJoined, getBuyerNames } from "./buyers";
import { dropOf, type DropView } from "../sale/rules/drop";
import { processSingleton } from "../process-singleton";
import { coalesced } from "../coalesce";
import { errorChain } from "../errors";
import { publicErrorMessage } from "../i18n/api-errors";
import { DEFAULT_LOCALE, type Locale } from "../i18n/locales";
import { getLog } from "../log";

// What the live pages show (workshop mode), built once per change per instance and sent to every
// subscriber of that instance: the store's phones get the public part, the projector the
// accounting too. Changes arrive over Redis pub/sub (./announce.ts), so a purchase served by one
// instance updates the pages connected to the other.

/** One person's unit in the who-got-one list. */
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
  /** The room's language, when the instructor pinned one for this drop: pages showing another follow it. */
  readonly locale?: Locale;
  /** Once a drop is open: the people who got a unit (in order), and how many other orders (load runs) there are. */
  readonly winners?: { readonly people: readonly Winner[]; readonly others: number };
}

const ACCOUNTING_FIELDS = [
  "strategy", "strategies", "soldUnderSeveral", "orders", "distinctUnits", "doubleSold", "lostUnits", "phantomUnits", "pendingUnits", "oversell", "buyersWithTwoOrders", "peakHolders",
  "liveness", "stuckForMs", "verdict",
] as const;

export interface AdminLiveSnapshot extends LiveSnapshot {
  readonly accounting: Pick<SaleStats, (typeof ACCOUNTING_FIELDS)[number]>;
}

/** People a who-got-one list shows at most. */
const WINNERS_SHOWN = 500;

async function getWinners(saleId: number): Promise<LiveSnapshot["winners"]> {
  const pool = getPool();
  // People's orders in order, each with how many orders carry its unit; the load runs' orders only counted.
  // The units are counted in one pass over the sale's orders (a count per person's order would read
  // them all again for every person shown).
  const [people, others] = await Promise.all([
    pool.query<{ buyer: string; unit: number; orders: number }>(
      `WITH people AS (
         SELECT id, buyer, stock_seen FROM orders
          WHERE sale_id = $1 AND status = 'sold' AND buyer LIKE $2
          ORDER BY id LIMIT $3
       ), units AS (
         SELECT stock_seen, count(*)::int AS orders FROM orders
          WHERE sale_id = $1 AND status = 'sold' AND stock_seen IN (SELECT stock_seen FROM people)
          GROUP BY stock_seen
       )
       SELECT p.buyer, p.stock_seen AS unit, u.orders
         FROM people p JOIN units u USING (stock_seen)
        ORDER BY p.id`,
      [saleId, `${HUMAN_PREFIX}%`, WINNERS_SHOWN],
    ),
    pool.query<{ n: number }>("SELECT count(*)::int AS n FROM orders WHERE sale_id = $1 AND status = 'sold' AND buyer NOT LIKE $2", [saleId, `${HUMAN_PREFIX}%`]),
  ]);
  const names = await getBuyerNames(people.rows.map((row) => row.buyer));
  return {
    people: people.rows.map((row) => ({ name: names.get(row.buyer) ?? "someone", unit: Number(row.unit), twice: Number(row.orders) > 1 })),
    others: Number(others.rows[0]?.n ?? 0),
  };
}

export async function getLiveSnapshot(): Promise<LiveSnapshot> {
  const redis = getRedis();
  const [sale, config, stock, joined] = await Promise.all([getCurrentSale(), getActiveConfig(), redis.get(STOCK_KEY), countJoined()]);
  const drop = dropOf(sale);
  // Both need only the sale's id: read together, one wait fewer for a snapshot built while a hall's
  // buyers keep the instance busy (each wait is a turn behind every request in flight).
  const [holders, winners] = await Promise.all([
    redis.hvals(saleCounterKeys(sale.id).holders),
    drop.state === "open" || drop.state === "closed" ? getWinners(sale.id) : undefined,
  ]);
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
    ...(sale.locale ? { locale: sale.locale } : {}),
    ...(winners ? { winners } : {}),
  };
}

const buildLiveSnapshotShared = coalesced(getLiveSnapshot);

/**
 * The store page's snapshot (public: anyone can load `/` in a loop): the hub's last broadcast when
 * nothing was announced since it was built, else one build at a time shared by the requests that
 * arrive meanwhile. The page then follows the live stream, as every phone does.
 */
export async function getLiveSnapshotShared(): Promise<LiveSnapshot> {
  const h = hub();
  if (h.fresh && h.subscribed && h.last) return { ...h.last.people, serverNow: Date.now() };
  return buildLiveSnapshotShared();
}

export async function getAdminLiveSnapshot(base?: LiveSnapshot): Promise<AdminLiveSnapshot> {
  const snapshot = base ?? (await getLiveSnapshot());
  const stats = await getSaleStats(snapshot.saleId);
  const accounting = Object.fromEntries(ACCOUNTING_FIELDS.map((field) => [field, stats[field]])) as AdminLiveSnapshot["accounting"];
  return { ...snapshot, accounting };
}

/**
 * Gets each snapshot's SSE event, as the bytes written to the stream: `data:` with the snapshot, or
 * `event: unavailable`. A broadcast encodes its event once for every listener (a hall of a thousand
 * phones is a thousand writes of the same bytes, not a thousand encodings of the same text).
 */
type Listener = (event: Uint8Array) => void;

const encoder = new TextEncoder();

interface Hub {
  readonly people: Set<Listener>;
  readonly admins: Set<Listener>;
  /** Each listener's language, for the one event that has words: `unavailable`. */
  readonly locales: Map<Listener, Locale>;
  /** Listeners that have not had their first snapshot yet (they get the next broadcast, or its failure). */
  readonly waiting: Set<Listener>;
  subscribed: boolean;
  lastAt: number;
  trailing?: NodeJS.Timeout;
  /** A broadcast is being built; `again`: a change arrived meanwhile, so one more follows it. */
  running: boolean;
  again: boolean;
  /** The last snapshots broadcast, and whether nothing was announced since they were built. */
  last?: { readonly people: LiveSnapshot; readonly admin?: AdminLiveSnapshot };
  fresh: boolean;
  /** How long after the last broadcast the next may start (broadcastSpacingMs of the last one). */
  spacingMs: number;
  /**
   * The streams were told their figures could not be built (a backing server down): the next
   * snapshot goes to every one of them, changed or not, and one is tried again every
   * RETRY_UNAVAILABLE_MS until it can be built — a page must not keep old figures as if current.
   */
  failed: { people: boolean; admins: boolean };
  retry?: NodeJS.Timeout;
}

/** While a snapshot cannot be built, how often it is tried again with no change announced. */
const RETRY_UNAVAILABLE_MS = 1000;

/** One hub per process (lib/process-singleton.ts). */
function hub(): Hub {
  return processSingleton("live.hub", (): Hub => ({
    people: new Set(), admins: new Set(), locales: new Map(), waiting: new Set(), subscribed: false, lastAt: 0, running: false, again: false, fresh: false, spacingMs: ANNOUNCE_EVERY_MS,
    failed: { people: false, admins: false },
  }));
}

export const snapshotEvent = (snapshot: LiveSnapshot) => `data: ${JSON.stringify(snapshot)}\n\n`;

/**
 * The figures could not be built: said by its code in the listener's language, never in the
 * failure's own words (a host and port, a driver's message: those go to the log). Phones and the
 * projector alike: a projector is read by the whole room.
 */
export const unavailableEvent = (locale: Locale) =>
  `event: unavailable\ndata: ${JSON.stringify({ code: "unavailable", reason: "live", message: publicErrorMessage("unavailable", { reason: "live" }, locale) })}\n\n`;

/** Two snapshots show the same thing: all but the clock they were built at is equal. */
function sameView(a: LiveSnapshot | undefined, b: LiveSnapshot): boolean {
  return a !== undefined && JSON.stringify({ ...a, serverNow: 0 }) === JSON.stringify({ ...b, serverNow: 0 });
}

/**
 * One snapshot for every subscriber. Never two at once: under load a snapshot (the accounting reads
 * every order) can take longer than the announce interval, and an older one finishing last would
 * show the stock going back up.
 */
async function broadcast(): Promise<void> {
  const h = hub();
  if (h.running) {
    h.again = true;
    return;
  }
  h.running = true;
  // Whoever is waiting now gets this broadcast; one who arrives while it is built waits for the next.
  const served = new Set(h.waiting);
  h.waiting.clear();
  try {
    if (h.people.size === 0 && h.admins.size === 0) return;
    // A change announced while this is built marks it stale again (changed()).
    h.fresh = true;
    let snapshot: LiveSnapshot;
    try {
      snapshot = await getLiveSnapshot();
    } catch (error) {
      h.fresh = false;
      tellUnavailable(h, h.people, "people", served, error);
      tellUnavailable(h, h.admins, "admins", served, error);
      return;
    }
    const previous = h.last;
    h.last = { people: snapshot };
    // What a page shows did not change (a thousand buyers told "sold out" after the end): only the
    // streams still waiting for their first snapshot get it — and every stream after an outage.
    const peopleChanged = h.failed.people || !sameView(previous?.people, snapshot);
    h.failed.people = false;
    const event = encoder.encode(snapshotEvent(snapshot));
    let written = 0;
    // The phones' event goes out before the projector's is built: the projector's figures read
    // every order, and a hall's phones need only the stock and the list.
    for (const listener of h.people) {
      if (!peopleChanged && !served.has(listener)) continue;
      listener(event);
      written += event.byteLength;
    }
    if (h.admins.size) {
      // When the projector's figures cannot be read, the phones still got the stock.
      let adminError: unknown;
      const admin = await getAdminLiveSnapshot(snapshot).catch((error: unknown) => void (adminError = error));
      if (admin) {
        h.last = { people: snapshot, admin };
        const adminChanged = h.failed.admins || !sameView(previous?.admin, admin);
        h.failed.admins = false;
        const full = encoder.encode(snapshotEvent(admin));
        for (const listener of h.admins) {
          if (!adminChanged && !served.has(listener)) continue;
          listener(full);
          written += full.byteLength;
        }
      } else {
        h.fresh = false;
        tellUnavailable(h, h.admins, "admins", served, adminError);
      }
    }
    h.spacingMs = broadcastSpacingMs(written);
  } finally {
    h.running = false;
    h.lastAt = Date.now();
    if (h.again || h.waiting.size) {
      h.again = false;
      refreshSoon();
    }
  }
}

/**
 * A snapshot could not be built (a backing server is down): the streams that were waiting for one
 * hear why, and so does every stream the first time, so no page goes on showing its last figures
 * as current (the pages then read "reconnecting" until the next snapshot). It is tried again in
 * RETRY_UNAVAILABLE_MS whether or not a change is announced.
 */
function tellUnavailable(h: Hub, listeners: Set<Listener>, kind: keyof Hub["failed"], served: Set<Listener>, error: unknown): void {
  // Once per outage, not once a retry: what failed, in its own words, is the log's.
  if (!h.failed[kind]) getLog().warn({ streams: kind, detail: errorChain(error) }, "live figures unavailable");
  // One encoding per language, not per listener.
  const events = new Map<Locale, Uint8Array>();
  const eventFor = (locale: Locale) => {
    let event = events.get(locale);
    if (!event) events.set(locale, (event = encoder.encode(unavailableEvent(locale))));
    return event;
  };
  for (const listener of listeners) {
    if (!h.failed[kind] || served.has(listener)) listener(eventFor(h.locales.get(listener) ?? DEFAULT_LOCALE));
  }
  h.failed[kind] = true;
  if (!h.retry) {
    h.retry = setTimeout(() => {
      h.retry = undefined;
      changed();
    }, RETRY_UNAVAILABLE_MS);
    h.retry.unref?.();
  }
}

/**
 * What an instance writes to its live streams per second at most, by spacing its broadcasts. A
 * broadcast costs its event's bytes once per stream: in a classroom (30 phones, a few KB each) that
 * is nothing and broadcasts follow changes every ANNOUNCE_EVERY_MS; in a hall of 1,000 phones on
 * two instances with a 5 KB who-got-one list, ten broadcasts a second were 25 MB/s per instance,
 * and the buyers' own requests waited behind those writes (docs/benchmarks.md, "The conference hall").
 */
export const LIVE_BYTES_PER_S = 8 * 1024 * 1024;
/** However large the hall, a change reaches the phones within this much of the last broadcast. */
export const MAX_BROADCAST_SPACING_MS = 500;

/** How long after a broadcast that wrote `bytesWritten` to its streams the next one may start. */
export function broadcastSpacingMs(bytesWritten: number): number {
  return Math.round(Math.min(MAX_BROADCAST_SPACING_MS, Math.max(ANNOUNCE_EVERY_MS, (1000 * bytesWritten) / LIVE_BYTES_PER_S)));
}

/** A change was announced: one snapshot for every subscriber, at most one per broadcast spacing (broadcastSpacingMs). */
function refreshSoon(): void {
  const h = hub();
  if (h.trailing) return;
  const wait = Math.max(0, h.lastAt + h.spacingMs - Date.now());
  h.trailing = setTimeout(() => {
    h.trailing = undefined;
    void broadcast();
  }, wait);
}

/** Something changed: what was broadcast last is no longer current. */
function changed(): void {
  hub().fresh = false;
  refreshSoon();
}

function ensureSubscribed(): void {
  const h = hub();
  if (h.subscribed) return;
  h.subscribed = true;
  const subscriber = getSubscriber(0);
  subscriber.on("message", (channel: string) => {
    if (channel === LIVE_CHANNEL) changed();
  });
  // Node 1 gone (a crash, a restart): nothing will be announced while it is, so the pages would
  // keep their last figures as current. Try a snapshot now: it fails, and every stream is told.
  subscriber.on("close", changed);
  // ioredis subscribes again after a reconnect; what changed meanwhile was not announced to us.
  subscriber.on("ready", changed);
  void subscriber.subscribe(LIVE_CHANNEL).catch(() => {});
}

/**
 * Calls `listener` with each snapshot's event after every change until the returned function is
 * called — and first with the current one. The current one is the hub's last broadcast when
 * nothing was announced since it was built (its clock brought up to now), else the next broadcast:
 * a thousand phones connecting, or one phone reconnecting in a loop, cost one snapshot between
 * them, never one Postgres read each.
 */
export function watchLive(listener: Listener, admin: boolean, locale: Locale = DEFAULT_LOCALE): () => void {
  ensureSubscribed();
  const h = hub();
  const set = admin ? h.admins : h.people;
  set.add(listener);
  h.locales.set(listener, locale);
  const last = admin ? h.last?.admin : h.last?.people;
  if (h.fresh && last && h.subscribed) {
    listener(encoder.encode(snapshotEvent({ ...last, serverNow: Date.now() })));
  } else {
    h.waiting.add(listener);
    refreshSoon();
  }
  return () => {
    set.delete(listener);
    h.waiting.delete(listener);
    h.locales.delete(listener);
  };
}
