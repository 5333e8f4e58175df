import { getRedis } from "../redis";
import { redisScript, runScript } from "../redis-script";
import { STOCK_KEY, saleCounterKeys } from "./keys";

/**
 * Liveness beside safety: a lock can be safe and still stop serving (a holder that died holding a
 * lock with no expiry, a lock service that lost a znode in a session that lives on). A sale is
 * STUCK when buyers keep arriving and being turned away (busy, unavailable, lock lost, an error),
 * stock is left, and the stock has not moved for several wait timeouts.
 *
 * No cost on the purchase's path: only a refused purchase records anything. Each refusal notes
 * the stock it saw; a refusal that finds the stock moved since the streak began starts a new
 * streak (something was sold, or given back), so a streak is exactly a time in which nothing moved.
 */
export type Liveness = "live" | "stuck";

export interface LivenessReading {
  readonly liveness: Liveness;
  /** How long nothing has moved while buyers were turned away (ms), when stuck. */
  readonly stuckForMs?: number;
  /** Buyers turned away since the stock last moved. */
  readonly refusedSinceMoved: number;
}

/** Nothing moved for this many wait timeouts (and at least STUCK_AFTER_MIN_MS): stuck. */
const WAIT_TIMEOUTS_STUCK = 3;
const STUCK_AFTER_MIN_MS = 2000;
/** Buyers still arriving: the last was turned away within a wait timeout and this much. */
const STILL_ARRIVING_MS = 5000;
/** Refusals in a streak before it can count as stuck (one unlucky buyer is not a stuck sale). */
const REFUSALS_STUCK = 3;
/** A sale's streak is kept this long after its last refusal. */
const STREAK_TTL_S = 24 * 60 * 60;

const NOTE_REFUSAL = redisScript(`
-- KEYS[1] the sale's liveness hash; KEYS[2] the stock; ARGV[1] the hash's expiry (s)
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local stock = redis.call('GET', KEYS[2]) or ''
if redis.call('HGET', KEYS[1], 'stock') ~= stock then
  -- The stock moved since the streak began (or there was none): a new streak starts here.
  redis.call('HSET', KEYS[1], 'stock', stock, 'firstAt', now, 'lastAt', now, 'refused', 1)
else
  redis.call('HSET', KEYS[1], 'lastAt', now)
  redis.call('HINCRBY', KEYS[1], 'refused', 1)
end
redis.call('EXPIRE', KEYS[1], ARGV[1])
return 1
`, 2);

/** A buyer of `saleId` was turned away by the lock or a server. Never awaited by the buyer. */
export function noteRefusal(saleId: number): void {
  void runScript(getRedis(), NOTE_REFUSAL, [saleCounterKeys(saleId).liveness, STOCK_KEY], [STREAK_TTL_S]).catch(() => {});
}

export interface StreakRecord {
  readonly stock?: string;
  readonly firstAt?: string;
  readonly lastAt?: string;
  readonly refused?: string;
}

/**
 * Reads a streak as the sale stands: `stock` is the stock now, `nowMs` Redis' clock now.
 */
export function livenessOf(streak: StreakRecord, stock: number, nowMs: number, waitTimeoutMs: number): LivenessReading {
  const refused = Number(streak.refused ?? 0);
  const moved = streak.stock === undefined || Number(streak.stock) !== stock;
  if (moved) return { liveness: "live", refusedSinceMoved: 0 };
  const firstAt = Number(streak.firstAt ?? nowMs);
  const lastAt = Number(streak.lastAt ?? 0);
  const stuckAfterMs = Math.max(WAIT_TIMEOUTS_STUCK * waitTimeoutMs, STUCK_AFTER_MIN_MS);
  const arriving = nowMs - lastAt <= waitTimeoutMs + STILL_ARRIVING_MS;
  const stuck = stock > 0 && refused >= REFUSALS_STUCK && arriving && lastAt - firstAt >= stuckAfterMs;
  return stuck ? { liveness: "stuck", stuckForMs: nowMs - firstAt, refusedSinceMoved: refused } : { liveness: "live", refusedSinceMoved: refused };
}
