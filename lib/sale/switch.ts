import { randomUUID } from "node:crypto";
import { LockBusyError } from "../locks/types";
import { getRedis } from "../redis";
import { redisScript, runScript } from "../redis-script";
import { CONFIG_KEY, SALE_KEY, saleCounterKeys } from "./keys";

/**
 * Quiesces the sale around a switch — of strategy or knobs, or a sale reset — so a switch under
 * load cannot make two holders: two different locks (or a lease released before its last write
 * was answered) would otherwise each admit a buyer.
 *
 * 1. `draining` (a deadline in Redis time) goes into the config hash: from then on the critical
 *    section's entry scripts refuse every buyer (423 busy, retry at once), while holders already
 *    inside finish their last write.
 * 2. Wait until no holder is inside (bounded: a holder frozen past the bound is fenced out next).
 * 3. Bump the epoch *before* changing anything. Every write carries the epoch its buyer started
 *    under, so from here a holder of the old epoch can neither enter nor write — one frozen past
 *    the drain bound that wakes during the change (a new sale's stock just written) is refused.
 * 4. Apply the change, then bump the epoch again and lift `draining` in one step: a buyer who read
 *    the config between the two bumps read it half-changed, and is refused too.
 *
 * Switches are serialised by a token lock of their own.
 */
const DRAIN_MAX_MS = 5000;
/** Held by the switch in progress (exported for the tests that hold it as a slow switch would). */
export const SWITCH_LOCK_KEY = "locklab:switching";
const SWITCH_LOCK_TTL_MS = 15_000;

/** Compare-and-delete, as the token lock releases (a switch never deletes another's claim). */
const RELEASE_IF_OURS = redisScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`, 1);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function holdersInside(): Promise<number> {
  const saleId = Number(await getRedis().hget(SALE_KEY, "id"));
  return saleId ? holdersInsideSale(saleId) : 0;
}

/** Buyers inside a sale's critical section now, every instance. */
export async function holdersInsideSale(saleId: number): Promise<number> {
  const counts = await getRedis().hvals(saleCounterKeys(saleId).holders);
  return counts.reduce((sum, count) => sum + Math.max(0, Number(count)), 0);
}

export async function quiesced<T>(change: () => Promise<T>): Promise<T> {
  const redis = getRedis();
  const token = randomUUID();
  const claimDeadline = Date.now() + SWITCH_LOCK_TTL_MS;
  while (!(await redis.set(SWITCH_LOCK_KEY, token, "PX", SWITCH_LOCK_TTL_MS, "NX"))) {
    if (Date.now() > claimDeadline) throw new LockBusyError("the sale's switch", SWITCH_LOCK_TTL_MS, "another switch of the sale did not finish in time");
    await sleep(20);
  }
  try {
    const [seconds] = await redis.time();
    await redis.hset(CONFIG_KEY, "draining", String(Number(seconds) * 1000 + DRAIN_MAX_MS + SWITCH_LOCK_TTL_MS));
    const drainDeadline = Date.now() + DRAIN_MAX_MS;
    while ((await holdersInside()) > 0 && Date.now() < drainDeadline) await sleep(10);
    await redis.hincrby(CONFIG_KEY, "epoch", 1);
    try {
      return await change();
    } finally {
      const saleId = Number(await redis.hget(SALE_KEY, "id"));
      const multi = redis.multi().hincrby(CONFIG_KEY, "epoch", 1).hdel(CONFIG_KEY, "draining");
      // A new lock may hand out fencing tokens from another counter: the store starts fresh.
      if (saleId) multi.del(saleCounterKeys(saleId).fence);
      await multi.exec();
    }
  } finally {
    await runScript(redis, RELEASE_IF_OURS, [SWITCH_LOCK_KEY], [token]);
  }
}
