import { randomUUID } from "node:crypto";
import type { PoolClient } from "pg";
import { getPool } from "../db";
import { getEnv } from "../env";
import { getStrategy } from "../locks/registry";
import { MIN_LEASE_LEFT_MS } from "../locks/lease";
import { LockLostError, type LockOptions } from "../locks/types";
import { getRedis } from "../redis";
import { redisScript, runScript } from "../redis-script";
import { getActiveConfig } from "../sale/config";
import { PENDING_SALES_KEY, SALE_KEY, SKU, saleCounterKeys } from "../sale/keys";
import { giveBackUnit, holderOf, type GiveBackResult, type PendingEntry } from "./critical-section";
import { recordOrder } from "./order-store";
import { processSingleton } from "../process-singleton";

/**
 * Settles reservations whose order never arrived: the buyer's instance crashed between the stock
 * write and the order insert, or Postgres did not answer. For each one older than a few seconds,
 * inside one Postgres transaction that holds the reservation's order row (so a late insert by the
 * purchase waits for the outcome and then finds it):
 * - an order already recorded → the reservation is simply dropped;
 * - else, under the sale's lock, the unit goes back on the shelf when it can go back *as itself*
 *   (the stock is exactly one below it; units keep their numbers, so the accounting stays exact),
 *   and the row is a 'returned' tombstone;
 * - else (the stock has moved on, or the sale is over) the order is recorded for the buyer.
 * Never both, never neither: a give-back that fails is counted and retried on the next pass.
 * (One window stays: the reconciler process dying between the give-back and its COMMIT, while a
 * purchase frozen for seconds inserts that very reservation's order — microseconds against seconds.
 * Postgres lost between the two is the same window: the row was never committed.)
 *
 * Every wait in it is bounded, and so is the transaction: a give-back whose answer never came is
 * asked about for ASK_FOR_MS at most, and one it still cannot learn about leaves its row
 * 'settling', committed — see askWhetherGivenBack for why that is still exact. The transaction
 * holds an order row that a late purchase's order batch may be waiting on, so it is kept shorter
 * than the main pool's statement timeout (lib/db-config.ts), which would cancel that batch. Its
 * longest case is Redis answering reads but not the give-back: GIVE_BACK_WAIT_MAX_MS for the
 * sale's lock, Redis' 2 s command timeout for the give-back's answer, ASK_FOR_MS of asking — 9 s
 * against 10 s.
 *
 * Each app instance runs it on a timer and once at start, under a token lease of its own so one
 * instance reconciles at a time.
 */
export const RECONCILE_AFTER_MS = 3000;
const PASS_EVERY_MS = 2000;
const LEASE_KEY = "locklab:reconciler";
const LEASE_MS = 20_000;
/** The least the reconciler waits for the sale's lock to give a unit back. */
const GIVE_BACK_WAIT_MS = 1000;
/**
 * The most it waits for that lock, whatever the buyers' wait timeout (up to 120 s): it waits
 * holding an order row (see above). A give-back that cannot have the lock in time fails, and is
 * tried again on the next pass.
 */
const GIVE_BACK_WAIT_MAX_MS = 5000;

/** Marks a reservation as the reconciler's to settle; answers its JSON, or nil when it is gone. */
const MARK_SETTLING = redisScript(`
-- KEYS[1] pending hash; ARGV[1] reservation id
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then return false end
raw = string.gsub(raw, '"state":"pending"', '"state":"settling"')
redis.call('HSET', KEYS[1], ARGV[1], raw)
return raw
`, 1);

/** Forgets a sale with nothing pending (a reservation recorded meanwhile keeps it listed). */
const FORGET_SETTLED_SALE = redisScript(`
if redis.call('HLEN', KEYS[1]) == 0 then redis.call('SREM', KEYS[2], ARGV[1]) end
return 1
`, 2);

const RELEASE_IF_OURS = redisScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`, 1);

export interface ReconcileSummary {
  /** Reservations whose order the purchase had recorded after all. */
  readonly alreadyOrdered: number;
  readonly givenBack: number;
  readonly ordersRecorded: number;
  readonly failed: number;
  /** False when another instance held the reconciler's lease. */
  readonly ran: boolean;
}

/** Rows left 'settling' looked at in one pass (the reservations they settle are few: a give-back not answered, each). */
const IN_DOUBT_PER_PASS = 100;

type Settled = "already-ordered" | "given-back" | "order-recorded" | "failed";

/** One pass over every sale with pending reservations, settling those older than `olderThanMs`. */
export async function reconcile(options: { olderThanMs?: number } = {}): Promise<ReconcileSummary> {
  const olderThanMs = options.olderThanMs ?? RECONCILE_AFTER_MS;
  const redis = getRedis();
  const summary = { alreadyOrdered: 0, givenBack: 0, ordersRecorded: 0, failed: 0, ran: false };
  const token = randomUUID();
  if (!(await redis.set(LEASE_KEY, token, "PX", LEASE_MS, "NX"))) return summary;
  summary.ran = true;
  try {
    // Give-backs an earlier pass could not learn about and that did happen: their reservation is gone,
    // so the pass below would never meet them again.
    // Postgres down: nothing to learn here, and each reservation below fails on its own as before.
    summary.givenBack += await settleGivenBackInDoubt().catch(() => 0);
    const [seconds, micros] = await redis.time();
    const nowMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    for (const saleId of (await redis.smembers(PENDING_SALES_KEY)).map(Number)) {
      const pendingKey = saleCounterKeys(saleId).pending;
      const entries = Object.entries(await redis.hgetall(pendingKey))
        .map(([id, raw]) => ({ id, ...(JSON.parse(raw) as Omit<PendingEntry, "id">) }))
        .filter((entry) => nowMs - entry.at >= olderThanMs)
        // Lowest unit first: a run of reserved units directly above the stock goes back in order.
        .sort((a, b) => a.unit - b.unit);
      for (const entry of entries) {
        const outcome = await settle(saleId, entry).catch(() => "failed" as const);
        if (outcome === "already-ordered") summary.alreadyOrdered++;
        else if (outcome === "given-back") summary.givenBack++;
        else if (outcome === "order-recorded") summary.ordersRecorded++;
        else summary.failed++;
      }
      await runScript(redis, FORGET_SETTLED_SALE, [pendingKey, PENDING_SALES_KEY], [saleId]);
    }
  } finally {
    await runScript(redis, RELEASE_IF_OURS, [LEASE_KEY], [token]).catch(() => 0);
  }
  return summary;
}

async function settle(saleId: number, entry: PendingEntry): Promise<Settled> {
  const redis = getRedis();
  const keys = saleCounterKeys(saleId);
  if (!(await runScript(redis, MARK_SETTLING, [keys.pending], [entry.id]))) return "already-ordered";
  const client = await getPool().connect();
  let discard = false;
  try {
    await client.query("BEGIN");
    const tombstone = await recordOrder(
      {
        reservation: entry.id, sku: SKU, saleId, runId: entry.runId, strategy: entry.strategy, instance: entry.instance,
        buyer: entry.buyer, unit: entry.unit, status: "returned", reconciled: true,
      },
      client,
    );
    // The row was there before us: the purchase recorded its order, or an earlier pass settled it.
    if (!tombstone.inserted && tombstone.status !== "settling") {
      await client.query("COMMIT");
      await redis.hdel(keys.pending, entry.id);
      return "already-ordered";
    }
    if (!tombstone.inserted) {
      // An earlier pass gave this unit back and could not learn whether it went; that pass is over
      // (this transaction holds its row now), so the reservation answers it: gone, it went.
      const earlier = await askWhetherGivenBack(keys.pending, entry.id);
      if (earlier === "given-back") {
        await client.query("UPDATE orders SET status = 'returned' WHERE reservation = $1", [entry.id]);
        await client.query("COMMIT");
        await redis.incr(keys.givenBack).catch(() => 0);
        return "given-back";
      }
      if (earlier === "unknown") {
        await client.query("ROLLBACK");
        return "failed";
      }
      // Still reserved: nothing went back. Settled below as any reservation, on the row in hand.
    }
    // A unit another buyer holds cannot go back on the shelf as itself: the stock reading one below it
    // is their write, not this reservation's (a stale write that landed on the same value — an ABA).
    // This reservation's write did land: the unit was sold twice, and is recorded so.
    if (await heldByAnother(client, saleId, entry)) {
      await client.query("UPDATE orders SET status = 'sold' WHERE reservation = $1", [entry.id]);
      await client.query("COMMIT");
      await redis.multi().hdel(keys.pending, entry.id).incr(keys.reconciled).exec();
      return "order-recorded";
    }
    let given = await giveBack(saleId, entry).catch((): GiveBackResult | "unknown" => "unknown");
    // No answer is no proof it did not happen: the script may have run with its reply lost.
    if (given === "unknown") given = await askWhetherGivenBack(keys.pending, entry.id);
    if (given === "given-back") {
      // 'returned' already, unless the row was an earlier pass's 'settling'.
      await client.query("UPDATE orders SET status = 'returned' WHERE reservation = $1", [entry.id]);
      await client.query("COMMIT");
      // The script freed the buyer with the unit: under the one-order rule they may buy again.
      await redis.incr(keys.givenBack);
      return "given-back";
    }
    if (given === "stock-moved" || given === "not-current") {
      await client.query("UPDATE orders SET status = 'sold' WHERE reservation = $1", [entry.id]);
      await client.query("COMMIT");
      await redis.multi().hdel(keys.pending, entry.id).incr(keys.reconciled).exec();
      return "order-recorded";
    }
    if (given === "unknown") {
      // Still no answer: the row is committed 'settling' — in doubt, and the transaction no longer
      // held (askWhetherGivenBack says why this stays exact). Redis is likely down, so the count may not land.
      await client.query("UPDATE orders SET status = 'settling' WHERE reservation = $1", [entry.id]);
      await client.query("COMMIT");
      void redis.incr(keys.givebackFailed).catch(() => 0);
      return "failed";
    }
    await client.query("ROLLBACK");
    await redis.incr(keys.givebackFailed);
    return "failed";
  } catch (error) {
    discard = !(await rolledBack(client, error));
    throw error;
  } finally {
    client.release(discard);
  }
}

/**
 * Rows an earlier pass left 'settling' whose reservation is gone: their give-back did happen (see
 * askWhetherGivenBack), and each becomes the 'returned' tombstone it is. One whose reservation is
 * still there is the pass's to settle as any reservation; one Redis cannot say about waits for a
 * later pass. How many it recorded.
 */
async function settleGivenBackInDoubt(): Promise<number> {
  const { rows } = await getPool().query<{ reservation: string; sale_id: number }>(
    // The literal 'settling' lets Postgres use the partial index of such rows (they are few).
    `SELECT reservation, sale_id FROM orders WHERE status = 'settling' ORDER BY id LIMIT ${IN_DOUBT_PER_PASS}`,
  );
  let givenBack = 0;
  for (const row of rows) {
    const outcome = await settleInDoubt(row.sale_id, row.reservation);
    if (outcome === "given-back") givenBack++;
    // Redis does not answer: the rest wait for a later pass, not ASK_FOR_MS each.
    if (outcome === "unknown") break;
  }
  return givenBack;
}

async function settleInDoubt(saleId: number, reservation: string): Promise<"given-back" | "pending" | "unknown"> {
  const keys = saleCounterKeys(saleId);
  const client = await getPool().connect();
  let discard = false;
  try {
    await client.query("BEGIN");
    // The row lock: no other pass is settling this reservation while this one looks.
    const { rows } = await client.query<{ status: string }>("SELECT status FROM orders WHERE reservation = $1 FOR UPDATE", [reservation]);
    if (rows[0]?.status !== "settling") {
      await client.query("ROLLBACK");
      return "pending";
    }
    const asked = await askWhetherGivenBack(keys.pending, reservation);
    if (asked !== "given-back") {
      await client.query("ROLLBACK");
      return asked === "unknown" ? "unknown" : "pending";
    }
    await client.query("UPDATE orders SET status = 'returned' WHERE reservation = $1", [reservation]);
    await client.query("COMMIT");
    await getRedis().incr(keys.givenBack).catch(() => 0);
    return "given-back";
  } catch (error) {
    discard = !(await rolledBack(client, error));
    return "unknown";
  } finally {
    client.release(discard);
  }
}

/**
 * Rolls back the transaction a failure interrupted; false when it could not, and the connection is
 * to be closed (which rolls it back on the server). A query that got no answer (the pool's query
 * timeout) is still out on its connection, so a ROLLBACK would only wait behind it: not tried.
 */
async function rolledBack(client: PoolClient, error: unknown): Promise<boolean> {
  if (/Query read timeout/i.test(error instanceof Error ? error.message : "")) return false;
  return client.query("ROLLBACK").then(() => true, () => false);
}

/** Whether an order or another reservation of the sale holds `entry`'s unit. */
async function heldByAnother(client: PoolClient, saleId: number, entry: PendingEntry): Promise<boolean> {
  const { rowCount } = await client.query(
    "SELECT 1 FROM orders WHERE sale_id = $1 AND stock_seen = $2 AND status = 'sold' AND reservation IS DISTINCT FROM $3 LIMIT 1",
    [saleId, entry.unit, entry.id],
  );
  if (rowCount) return true;
  const pending = await getRedis().hgetall(saleCounterKeys(saleId).pending);
  return Object.entries(pending).some(([id, raw]) => id !== entry.id && (JSON.parse(raw) as { unit?: number }).unit === entry.unit);
}

/** How long apart the reconciler asks Redis again about a give-back whose answer it did not get. */
const ASK_AGAIN_MS = 250;
/** How many times, and for how long at most, before it leaves the question to a later pass. */
const ASK_TRIES = 8;
const ASK_FOR_MS = 2000;

/**
 * Whether a give-back whose reply was lost happened. The script is atomic and deletes the
 * reservation exactly when it puts the unit back, so a reservation gone means given back and one
 * still there means nothing changed (a script Redis has received runs before any later command of
 * the same connection, and this asks on the connection the script went on). "unknown" when Redis
 * does not answer within ASK_TRIES asks and ASK_FOR_MS.
 *
 * Why giving up is still exact. The tombstone must outlive any give-back that may have happened:
 * without it, a late purchase could record an order for a unit back on the shelf (a phantom; the
 * accounting's "a give-back only follows a tombstone, never an order"). This used to be kept by
 * holding the tombstone's transaction open until Redis answered — for as long as node 1 was down,
 * with the order row locked and a pool connection taken. Now the row is committed 'settling'
 * instead, and the transaction ends:
 * - nothing is decided on a guess: 'settling' is not sold (no figure counts it, no buyer is told
 *   they bought), and not returned;
 * - a late order insert of the reservation finds the row, as it finds a tombstone, and its buyer is
 *   told the unit is still being settled; the purchase forgets its reservation only on 'sold';
 * - so a reservation whose row is 'settling' leaves the pending hash only by the give-back itself
 *   (the reconciler forgets one only after committing 'sold' or finding 'sold' or 'returned'), and
 *   a later pass, holding the row, learns the truth from it: gone, the unit went back ('returned',
 *   settleGivenBackInDoubt); still there, it did not, and it is settled as any reservation;
 * - never given back twice: the give-back runs only on a reservation that is there and deletes it,
 *   so of two give-backs of one reservation at most one can land.
 * The transaction that gives up holds nothing afterwards; the unit stays reserved (or back on the
 * shelf) until a pass can ask Redis, and the accounting shows it pending meanwhile, never lost.
 */
async function askWhetherGivenBack(pendingKey: string, reservation: string): Promise<"given-back" | "not-settling" | "unknown"> {
  const deadline = Date.now() + ASK_FOR_MS;
  for (let asked = 0; asked < ASK_TRIES; asked++) {
    const left = deadline - Date.now();
    if (left <= 0) break;
    if (asked > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(ASK_AGAIN_MS, left)));
    try {
      const there = await answeredWithin(getRedis().hexists(pendingKey, reservation), deadline - Date.now());
      return there ? "not-settling" : "given-back";
    } catch {
      // not answered: ask again while the bounds allow
    }
  }
  return "unknown";
}

/** `work`'s answer, or a rejection once `ms` have passed without one (the work itself goes on). */
async function answeredWithin<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), Math.max(0, ms));
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The give-back, under the lock of the strategy in force, on the sale that is current. While the
 * sale records its timeline, the give-back is recorded on the lane of the purchase whose unit it
 * puts back (same holder id as that purchase's read and write), so the timeline counts the unit's
 * next write as a new sale of it, as the orders do — not as the unit written twice.
 */
async function giveBack(saleId: number, entry: PendingEntry): Promise<GiveBackResult | "not-current"> {
  const redis = getRedis();
  if (Number(await redis.hget(SALE_KEY, "id")) !== saleId) return "not-current";
  const config = await getActiveConfig();
  const strategy = getStrategy(config.strategy);
  // The reconciler is no buyer: it waits its own while for the lock, even where buyers never wait.
  const waitTimeoutMs = Math.min(Math.max(config.waitTimeoutMs, GIVE_BACK_WAIT_MS), GIVE_BACK_WAIT_MAX_MS);
  const options: LockOptions = { ttlMs: config.lockTtlMs, waitTimeoutMs, epoch: config.epoch };
  const recordAs = config.recordTimeline ? { holder: holderOf(entry.id), instance: getEnv().APP_INSTANCE } : undefined;
  return strategy.withLock(SKU, options, async (held) => {
    // The same lease rule as every holder's write: a reconciler paused past its lease writes nothing.
    if (held.timeLeftMs && held.timeLeftMs() < MIN_LEASE_LEFT_MS) throw new LockLostError(SKU);
    return giveBackUnit(redis, saleId, entry, config.epoch, held.fencingToken, recordAs);
  });
}

/**
 * Settles a sale's reservations now, for counting it (a run's end): waits until each is either
 * dropped by its purchase's order or old enough to reconcile, and reconciles. Bounded — long enough
 * for a reconciler lease left by an instance cut off mid-pass to run out, and a pass after it;
 * whatever is still pending after it is shown as pending, never as lost.
 */
export async function settleReservations(saleId: number, maxWaitMs = LEASE_MS + RECONCILE_AFTER_MS * 2): Promise<void> {
  const redis = getRedis();
  const deadline = Date.now() + maxWaitMs;
  const pendingKey = saleCounterKeys(saleId).pending;
  while (Date.now() < deadline && (await redis.hlen(pendingKey)) > 0) {
    await reconcile().catch(() => undefined);
    if ((await redis.hlen(pendingKey)) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Starts this process's reconciler: one pass now (an instance that starts after a crash), then on a timer. */
export function startReconciler(): void {
  processSingleton("reconciler.timer", () => {
    const pass = () => void reconcile().catch((error) => console.error(`${getEnv().APP_INSTANCE}: reconcile pass failed`, error));
    pass();
    return setInterval(pass, PASS_EVERY_MS).unref();
  });
}
