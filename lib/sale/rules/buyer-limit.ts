import { AppError } from "../../errors";
import { getEnv } from "../../env";
import { getRedis } from "../../redis";
import { redisScript, runScript } from "../../redis-script";

/**
 * The per-buyer limit on a purchase: one phone cannot flood the sale. A fixed window per buyer in
 * Redis (shared by every instance): the first request of a window starts it, and requests beyond
 * BUY_RATE_LIMIT in BUY_RATE_WINDOW_MS are refused with 429 before anything is read or written.
 * Load runs send each request as a new buyer, so they never meet it.
 */
const HIT_WINDOW = redisScript(`
-- KEYS[1]: the buyer's counter; ARGV[1]: the window (ms)
local hits = redis.call('INCR', KEYS[1])
-- The first hit of a window arms its expiry; the counter disappears with the window.
if hits == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {hits, redis.call('PTTL', KEYS[1])}
`, 1);

export class RateLimitedError extends AppError {
  override name = "RateLimitedError";
  readonly status = 429;
  readonly code = "rate_limited";
  override readonly ruleRefusal = true;
  override readonly retryAfterS: number;
  override readonly details: Readonly<Record<string, unknown>>;
  constructor(limit: number, windowMs: number, retryInMs: number) {
    super(`too many purchase attempts from this buyer: at most ${limit} per ${windowMs / 1000} s; nothing was bought, try again in a moment`);
    this.retryAfterS = Math.max(1, Math.ceil(retryInMs / 1000));
    this.details = { limit, windowMs, retryInMs };
  }
}

const rateKey = (buyer: string) => `locklab:rate:buy:${buyer}`;

/** Counts one attempt of `buyer`; throws RateLimitedError past the limit. BUY_RATE_LIMIT=0 turns it off. */
export async function hitBuyerLimit(buyer: string): Promise<void> {
  const { BUY_RATE_LIMIT: limit, BUY_RATE_WINDOW_MS: windowMs } = getEnv();
  if (limit === 0) return;
  const [hits, ttl] = await runScript<[number, number]>(getRedis(), HIT_WINDOW, [rateKey(buyer)], [windowMs]);
  if (hits > limit) throw new RateLimitedError(limit, windowMs, ttl > 0 ? ttl : windowMs);
}
