import type Redis from "ioredis";
import { STOCK_KEY, saleCounterKeys } from "../sale/keys";

/**
 * The critical section's Redis side, measured. Entering counts the holders inside (keeping the
 * peak) and reads the stock; leaving writes the new stock, if any, and counts the holder out.
 * The stock write stays a blind `SET stock−1` of a value read earlier, exactly the
 * read-modify-write the lock must protect: fusing the counters saves round trips, not honesty.
 */
export const ENTER_CRITICAL_SECTION = `
-- KEYS[1] holders inside now; KEYS[2] peak holders; KEYS[3] stock
local inside = redis.call('INCR', KEYS[1])
if inside > tonumber(redis.call('GET', KEYS[2]) or '0') then
  redis.call('SET', KEYS[2], inside)
end
return tonumber(redis.call('GET', KEYS[3]) or '0')
`;

export const LEAVE_CRITICAL_SECTION = `
-- KEYS[1] holders inside now; KEYS[2] stock; ARGV[1] the stock to write, or '' to write nothing
if ARGV[1] ~= '' then
  redis.call('SET', KEYS[2], ARGV[1])
end
redis.call('DECR', KEYS[1])
return 1
`;

/** The lock-free purchase: check and decrement in one atomic step (counted like a holder). */
export const TAKE_UNIT_ATOMICALLY = `
-- KEYS[1] peak holders; KEYS[2] stock
if redis.call('GET', KEYS[1]) == false then
  redis.call('SET', KEYS[1], 1)      -- one script runs at a time: never more than one "holder"
end
local stock = tonumber(redis.call('GET', KEYS[2]) or '0')
if stock <= 0 then
  return -1                          -- sold out
end
return redis.call('DECR', KEYS[2])   -- the stock left after this unit
`;

interface CriticalSectionScripts {
  takeUnitAtomically(peakKey: string, stockKey: string): Promise<number>;
  enterCriticalSection(holdersKey: string, peakKey: string, stockKey: string): Promise<number>;
  leaveCriticalSection(holdersKey: string, stockKey: string, newStock: string): Promise<number>;
}

const registered = new WeakSet<Redis>();

function scripts(client: Redis): CriticalSectionScripts {
  if (!registered.has(client)) {
    client.defineCommand("enterCriticalSection", { numberOfKeys: 3, lua: ENTER_CRITICAL_SECTION });
    client.defineCommand("leaveCriticalSection", { numberOfKeys: 2, lua: LEAVE_CRITICAL_SECTION });
    client.defineCommand("takeUnitAtomically", { numberOfKeys: 2, lua: TAKE_UNIT_ATOMICALLY });
    registered.add(client);
  }
  return client as unknown as CriticalSectionScripts;
}

/** Reads the stock on entry; `leave(newStock)` writes it (or not) and counts the holder out. */
export async function enterCriticalSection(redis: Redis, saleId: number) {
  const keys = saleCounterKeys(saleId);
  const stock = await scripts(redis).enterCriticalSection(keys.holders, keys.peak, STOCK_KEY);
  return {
    stock,
    leave: (newStock?: number) =>
      scripts(redis).leaveCriticalSection(keys.holders, STOCK_KEY, newStock === undefined ? "" : String(newStock)),
  };
}

/** Takes one unit with no lock; resolves with the stock seen and left, or undefined when sold out. */
export async function takeUnitAtomically(redis: Redis, saleId: number) {
  const left = await scripts(redis).takeUnitAtomically(saleCounterKeys(saleId).peak, STOCK_KEY);
  return left < 0 ? undefined : { stockSeen: left + 1, stockLeft: left };
}
