import type Redis from "ioredis";
import { STOCK_KEY, saleCounterKeys } from "../sale/keys";

/**
 * The critical section's Redis side, measured. Entering counts the holders inside (per instance,
 * so an instance that crashed mid-section can clear its own count on restart) keeping the peak,
 * and reads the stock; leaving writes the new stock, if any, and counts the holder out.
 * The stock write stays a blind `SET stock−1` of a value read earlier, exactly the
 * read-modify-write the lock must protect: fusing the counters saves round trips, not honesty.
 */
/** Counts this holder in (per instance) and keeps the peak: KEYS[1] holders, KEYS[2] peak, ARGV[1] instance. */
const COUNT_HOLDER_IN = `
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
local inside = 0
for _, count in ipairs(redis.call('HVALS', KEYS[1])) do inside = inside + tonumber(count) end
if inside > tonumber(redis.call('GET', KEYS[2]) or '0') then
  redis.call('SET', KEYS[2], inside)
end
`;

export const ENTER_CRITICAL_SECTION = `
-- KEYS[1] holders per instance (hash); KEYS[2] peak holders; KEYS[3] stock; ARGV[1] instance
${COUNT_HOLDER_IN}
return tonumber(redis.call('GET', KEYS[3]) or '0')
`;

export const LEAVE_CRITICAL_SECTION = `
-- KEYS[1] holders per instance; KEYS[2] stock; ARGV[1] instance; ARGV[2] stock to write, or ''
if ARGV[2] ~= '' then
  redis.call('SET', KEYS[2], ARGV[2])
end
redis.call('HINCRBY', KEYS[1], ARGV[1], -1)
return 1
`;

/**
 * The fenced store (token-fencing): every access carries the lock's fencing token, and the store
 * refuses a token lower than the highest it has accepted, for the read as for the write. A
 * holder that paused past its TTL is therefore refused both if a newer holder read the stock
 * since and if a newer holder already wrote it: its stale write never lands.
 */
export const ENTER_FENCED = `
-- KEYS[1] holders; KEYS[2] peak; KEYS[3] stock; KEYS[4] highest token accepted; KEYS[5] refusals
-- ARGV[1] instance; ARGV[2] fencing token
if tonumber(ARGV[2]) < tonumber(redis.call('GET', KEYS[4]) or '0') then
  redis.call('INCR', KEYS[5])
  return -1                          -- a newer holder has been here: refuse the stale reader
end
redis.call('SET', KEYS[4], ARGV[2])
${COUNT_HOLDER_IN}
return tonumber(redis.call('GET', KEYS[3]) or '0')
`;

export const LEAVE_FENCED = `
-- KEYS[1] holders; KEYS[2] stock; KEYS[3] highest token accepted; KEYS[4] refusals; KEYS[5] write log
-- ARGV[1] instance; ARGV[2] stock to write, or ''; ARGV[3] fencing token
redis.call('HINCRBY', KEYS[1], ARGV[1], -1)
if ARGV[2] == '' then return 1 end
if tonumber(ARGV[3]) < tonumber(redis.call('GET', KEYS[3]) or '0') then
  redis.call('INCR', KEYS[4])
  return 0                           -- stale write refused: the stock keeps the newer holder's value
end
redis.call('SET', KEYS[3], ARGV[3])
redis.call('SET', KEYS[2], ARGV[2])
redis.call('RPUSH', KEYS[5], ARGV[3])  -- the tokens of accepted writes, in order (for the lab)
redis.call('LTRIM', KEYS[5], -10000, -1)
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
  enterCriticalSection(holdersKey: string, peakKey: string, stockKey: string, instance: string): Promise<number>;
  leaveCriticalSection(holdersKey: string, stockKey: string, instance: string, newStock: string): Promise<number>;
  enterFenced(...args: [string, string, string, string, string, string, number]): Promise<number>;
  leaveFenced(...args: [string, string, string, string, string, string, string, number]): Promise<number>;
}

const registered = new WeakSet<Redis>();

function scripts(client: Redis): CriticalSectionScripts {
  if (!registered.has(client)) {
    client.defineCommand("enterCriticalSection", { numberOfKeys: 3, lua: ENTER_CRITICAL_SECTION });
    client.defineCommand("leaveCriticalSection", { numberOfKeys: 2, lua: LEAVE_CRITICAL_SECTION });
    client.defineCommand("takeUnitAtomically", { numberOfKeys: 2, lua: TAKE_UNIT_ATOMICALLY });
    client.defineCommand("enterFenced", { numberOfKeys: 5, lua: ENTER_FENCED });
    client.defineCommand("leaveFenced", { numberOfKeys: 5, lua: LEAVE_FENCED });
    registered.add(client);
  }
  return client as unknown as CriticalSectionScripts;
}

export interface CriticalSection {
  /** The stock read on entry; undefined when a fenced store refused this (stale) holder. */
  readonly stock: number | undefined;
  /** Writes `newStock` (or nothing) and counts the holder out; false when a fenced write was refused. */
  leave(newStock?: number): Promise<boolean>;
}

/**
 * Enters the critical section: counts the holder in and reads the stock. With a fencing token
 * the store checks it on the read and on the write (see ENTER_FENCED / LEAVE_FENCED).
 */
export async function enterCriticalSection(
  redis: Redis,
  saleId: number,
  instance: string,
  fencingToken?: number,
): Promise<CriticalSection> {
  const keys = saleCounterKeys(saleId);
  const run = scripts(redis);
  const encode = (newStock?: number) => (newStock === undefined ? "" : String(newStock));
  if (fencingToken === undefined) {
    const stock = await run.enterCriticalSection(keys.holders, keys.peak, STOCK_KEY, instance);
    return {
      stock,
      leave: async (newStock) => (await run.leaveCriticalSection(keys.holders, STOCK_KEY, instance, encode(newStock))) === 1,
    };
  }
  const read = await run.enterFenced(keys.holders, keys.peak, STOCK_KEY, keys.fence, keys.staleRefused, instance, fencingToken);
  if (read < 0) return { stock: undefined, leave: async () => false };
  return {
    stock: read,
    leave: async (newStock) =>
      (await run.leaveFenced(keys.holders, STOCK_KEY, keys.fence, keys.staleRefused, keys.fenceLog, instance, encode(newStock), fencingToken)) === 1,
  };
}

/** Forgets the holders an instance had inside when it died: called when that instance starts. */
export async function clearInstanceHolders(redis: Redis, saleId: number, instance: string): Promise<void> {
  await redis.hdel(saleCounterKeys(saleId).holders, instance);
}

/** Takes one unit with no lock; resolves with the stock seen and left, or undefined when sold out. */
export async function takeUnitAtomically(redis: Redis, saleId: number) {
  const left = await scripts(redis).takeUnitAtomically(saleCounterKeys(saleId).peak, STOCK_KEY);
  return left < 0 ? undefined : { stockSeen: left + 1, stockLeft: left };
}
