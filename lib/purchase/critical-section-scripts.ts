import type Redis from "ioredis";
import { redisScript, runScript, type RedisScript } from "../redis-script";
import { STREAM_CAP } from "../sale/keys";

/**
 * The critical section's Lua (see critical-section.ts for what each guard is for). Every script
 * runs in one round trip; the answers below are shared by the entry scripts.
 */
/** Script answers shared by the entry scripts (a stock read is ≥ 0). */
export const REFUSED_STALE = -1;
export const REFUSED_SWITCH = -2;
/** The atomic take's answer to a buyer who already has an order in the sale (one order per buyer). */
export const ALREADY_BOUGHT = -3;

/** Refuses a buyer whose config epoch is not the current one, or any buyer while a switch drains. */
const CHECK_EPOCH_ON_ENTRY = `
local config = redis.call('HMGET', KEYS[4], 'epoch', 'draining')
if (config[1] or '0') ~= ARGV[2] then return -2 end
if config[2] and tonumber(config[2]) > tonumber(redis.call('TIME')[1]) * 1000 then return -2 end
`;

/** A holder that entered before a switch that timed out waiting for it may not write after it. */
const CHECK_EPOCH_ON_WRITE = `
if (redis.call('HGET', KEYS[3], 'epoch') or '0') ~= ARGV[3] then
  redis.call('HINCRBY', KEYS[1], ARGV[1], -1)
  return -2
end
`;

/**
 * The holder timeline's record of a stock read or write, stamped with Redis' own clock (µs) and
 * added to the sale's capped stream in the same script: no extra round trip, exact order.
 * A holder id of '' records nothing (recording off).
 */
const RECORD_EVENT = `
local function record(events, holder, instance, kind, ...)
  if holder == '' then return end
  local now = redis.call('TIME')
  redis.call('XADD', events, 'MAXLEN', '~', ${STREAM_CAP}, '*',
    't', now[1] .. string.sub('00000' .. now[2], -6), 'k', kind, 'h', holder, 'i', instance, ...)
end
`;

/** Counts this holder in (per instance) and keeps the peak: KEYS[1] holders, KEYS[2] peak, ARGV[1] instance. */
const COUNT_HOLDER_IN = `
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
local inside = 0
for _, count in ipairs(redis.call('HVALS', KEYS[1])) do inside = inside + tonumber(count) end
if inside > tonumber(redis.call('GET', KEYS[2]) or '0') then
  redis.call('SET', KEYS[2], inside)
end
`;

/**
 * Records the reservation of the unit just taken: field = reservation id, value = the client's
 * JSON prefix (unit, buyer, …) closed here with Redis' own clock and the state 'pending'.
 * Expects locals \`pending\`, \`sales\`, \`reservation\`, \`entry\`, \`saleId\`.
 */
const RECORD_RESERVATION = `
if reservation ~= '' then
  local now = redis.call('TIME')
  local at = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
  redis.call('HSET', pending, reservation, entry .. ',"at":' .. at .. ',"state":"pending"}')
  redis.call('SADD', sales, saleId)
end
`;

/**
 * One order per buyer: the buyer is marked in the same script as the stock write that sold them a
 * unit, so a mark exists exactly when a write landed (the reconciler removes it with a unit it
 * gives back). Expects locals \`buyers\` (the sale's set) and \`buyer\` ('' when the rule is off).
 */
const MARK_BUYER = `
if buyer ~= '' then redis.call('SADD', buyers, buyer) end
`;

const ENTER_CRITICAL_SECTION = redisScript(`
-- KEYS[1] holders per instance (hash); KEYS[2] peak holders; KEYS[3] stock; KEYS[4] config; KEYS[5] events
-- ARGV[1] instance; ARGV[2] config epoch; ARGV[3] holder id for the timeline, or ''
${RECORD_EVENT}
${CHECK_EPOCH_ON_ENTRY}
${COUNT_HOLDER_IN}
local stock = tonumber(redis.call('GET', KEYS[3]) or '0')
record(KEYS[5], ARGV[3], ARGV[1], 'read', 's', stock)
return stock
`, 5);

const LEAVE_CRITICAL_SECTION = redisScript(`
-- KEYS[1] holders per instance; KEYS[2] stock; KEYS[3] config; KEYS[4] pending; KEYS[5] pending sales; KEYS[6] events;
-- KEYS[7] the sale's buyers with an order
-- ARGV[1] instance; ARGV[2] stock to write, or ''; ARGV[3] epoch; ARGV[4] reservation id, or '';
-- ARGV[5] reservation JSON prefix; ARGV[6] sale id; ARGV[7] holder id for the timeline, or '';
-- ARGV[8] the buyer to mark with the write (one order per buyer), or ''
${RECORD_EVENT}
if ARGV[2] == '' then
  redis.call('HINCRBY', KEYS[1], ARGV[1], -1)
  record(KEYS[6], ARGV[7], ARGV[1], 'leave')
  return 1
end
if (redis.call('HGET', KEYS[3], 'epoch') or '0') ~= ARGV[3] then
  record(KEYS[6], ARGV[7], ARGV[1], 'write-refused', 'u', tonumber(ARGV[2]) + 1, 'note', 'the strategy was switched meanwhile')
end
${CHECK_EPOCH_ON_WRITE}
redis.call('SET', KEYS[2], ARGV[2])
local pending, sales, reservation, entry, saleId = KEYS[4], KEYS[5], ARGV[4], ARGV[5], ARGV[6]
${RECORD_RESERVATION}
local buyers, buyer = KEYS[7], ARGV[8]
${MARK_BUYER}
redis.call('HINCRBY', KEYS[1], ARGV[1], -1)
record(KEYS[6], ARGV[7], ARGV[1], 'write', 's', ARGV[2], 'u', tonumber(ARGV[2]) + 1)
return 1
`, 7);

/**
 * The fenced store (token-fencing, pg-for-update): every access carries the lock's fencing token,
 * and the store refuses a token lower than the highest it has accepted, for the read as for the
 * write. A holder that paused past its lease is therefore refused both if a newer holder read the
 * stock since and if a newer holder already wrote it: its stale write never lands.
 */
const ENTER_FENCED = redisScript(`
-- KEYS[1] holders; KEYS[2] peak; KEYS[3] stock; KEYS[4] config; KEYS[5] highest token accepted; KEYS[6] refusals;
-- KEYS[7] events
-- ARGV[1] instance; ARGV[2] epoch; ARGV[3] fencing token; ARGV[4] holder id for the timeline, or ''
${RECORD_EVENT}
${CHECK_EPOCH_ON_ENTRY}
if tonumber(ARGV[3]) < tonumber(redis.call('GET', KEYS[5]) or '0') then
  redis.call('INCR', KEYS[6])
  record(KEYS[7], ARGV[4], ARGV[1], 'read-refused', 'f', ARGV[3])
  return -1                          -- a newer holder has been here: refuse the stale reader
end
redis.call('SET', KEYS[5], ARGV[3])
${COUNT_HOLDER_IN}
local stock = tonumber(redis.call('GET', KEYS[3]) or '0')
record(KEYS[7], ARGV[4], ARGV[1], 'read', 's', stock, 'f', ARGV[3])
return stock
`, 7);

const LEAVE_FENCED = redisScript(`
-- KEYS[1] holders; KEYS[2] stock; KEYS[3] config; KEYS[4] pending; KEYS[5] pending sales;
-- KEYS[6] highest token accepted; KEYS[7] refusals; KEYS[8] write log; KEYS[9] events; KEYS[10] the sale's buyers with an order
-- ARGV[1] instance; ARGV[2] stock to write, or ''; ARGV[3] epoch; ARGV[4] reservation id, or '';
-- ARGV[5] reservation JSON prefix; ARGV[6] sale id; ARGV[7] fencing token; ARGV[8] holder id, or '';
-- ARGV[9] the buyer to mark with the write (one order per buyer), or ''
${RECORD_EVENT}
if ARGV[2] == '' then
  redis.call('HINCRBY', KEYS[1], ARGV[1], -1)
  record(KEYS[9], ARGV[8], ARGV[1], 'leave')
  return 1
end
if (redis.call('HGET', KEYS[3], 'epoch') or '0') ~= ARGV[3] then
  record(KEYS[9], ARGV[8], ARGV[1], 'write-refused', 'u', tonumber(ARGV[2]) + 1, 'note', 'the strategy was switched meanwhile')
end
${CHECK_EPOCH_ON_WRITE}
redis.call('HINCRBY', KEYS[1], ARGV[1], -1)
if tonumber(ARGV[7]) < tonumber(redis.call('GET', KEYS[6]) or '0') then
  redis.call('INCR', KEYS[7])
  record(KEYS[9], ARGV[8], ARGV[1], 'write-refused', 'u', tonumber(ARGV[2]) + 1, 'f', ARGV[7],
    'note', 'fencing token ' .. ARGV[7] .. ' is older than ' .. redis.call('GET', KEYS[6]))
  return 0                           -- stale write refused: the stock keeps the newer holder's value
end
redis.call('SET', KEYS[6], ARGV[7])
redis.call('SET', KEYS[2], ARGV[2])
local pending, sales, reservation, entry, saleId = KEYS[4], KEYS[5], ARGV[4], ARGV[5], ARGV[6]
${RECORD_RESERVATION}
local buyers, buyer = KEYS[10], ARGV[9]
${MARK_BUYER}
record(KEYS[9], ARGV[8], ARGV[1], 'write', 's', ARGV[2], 'u', tonumber(ARGV[2]) + 1, 'f', ARGV[7])
redis.call('RPUSH', KEYS[8], ARGV[7])  -- the tokens of accepted writes, in order (for the lab)
redis.call('LTRIM', KEYS[8], -10000, -1)
return 1
`, 10);

/**
 * The lock-free purchase: check, decrement and reserve in one atomic step (counted like a holder);
 * under one order per buyer, the buyer's check and mark are part of the same step.
 */
const TAKE_UNIT_ATOMICALLY = redisScript(`
-- KEYS[1] peak holders; KEYS[2] stock; KEYS[3] config; KEYS[4] pending; KEYS[5] pending sales; KEYS[6] events;
-- KEYS[7] the sale's buyers with an order
-- ARGV[1] epoch; ARGV[2] reservation id; ARGV[3] reservation JSON prefix (unit added here); ARGV[4] sale id;
-- ARGV[5] holder id for the timeline, or ''; ARGV[6] instance; ARGV[7] the buyer (one order per buyer), or ''
${RECORD_EVENT}
local config = redis.call('HMGET', KEYS[3], 'epoch', 'draining')
if (config[1] or '0') ~= ARGV[1] then return -2 end
if config[2] and tonumber(config[2]) > tonumber(redis.call('TIME')[1]) * 1000 then return -2 end
if redis.call('GET', KEYS[1]) == false then
  redis.call('SET', KEYS[1], 1)      -- one script runs at a time: never more than one "holder"
end
local buyers, buyer = KEYS[7], ARGV[7]
if buyer ~= '' and redis.call('SISMEMBER', buyers, buyer) == 1 then
  return -3                          -- this buyer already has an order in this sale
end
local stock = tonumber(redis.call('GET', KEYS[2]) or '0')
if stock <= 0 then
  return -1                          -- sold out
end
local left = redis.call('DECR', KEYS[2])
local pending, sales, reservation, entry, saleId = KEYS[4], KEYS[5], ARGV[2], ARGV[3] .. ',"unit":' .. stock, ARGV[4]
${RECORD_RESERVATION}
${MARK_BUYER}
record(KEYS[6], ARGV[5], ARGV[6], 'atomic-take', 's', left, 'u', stock)
return left                          -- the stock left after this unit
`, 7);

/**
 * The reconciler's give-back of a reserved unit whose order never came: it puts the unit back on
 * the shelf only as itself — when the stock is exactly one below it, so units keep their numbers
 * and the accounting stays exact — and only while the reservation is the reconciler's to settle.
 * Run under the sale's lock (a blind SET of a holder that read earlier would undo it).
 */
const GIVE_BACK_UNIT = redisScript(`
-- KEYS[1] stock; KEYS[2] pending; KEYS[3] config; KEYS[4] highest token accepted; KEYS[5] current sale; KEYS[6] events;
-- KEYS[7] the sale's buyers with an order (one order per buyer)
-- ARGV[1] reservation id; ARGV[2] unit; ARGV[3] epoch; ARGV[4] fencing token, or ''; ARGV[5] sale id;
-- ARGV[6] holder id for the timeline, or ''; ARGV[7] instance (the reconciler's); ARGV[8] the unit's buyer, or ''
${RECORD_EVENT}
if redis.call('HGET', KEYS[5], 'id') ~= ARGV[5] then return -4 end   -- the stock is another sale's now
local config = redis.call('HMGET', KEYS[3], 'epoch', 'draining')
if (config[1] or '0') ~= ARGV[3] then return -2 end
if config[2] and tonumber(config[2]) > tonumber(redis.call('TIME')[1]) * 1000 then return -2 end
local raw = redis.call('HGET', KEYS[2], ARGV[1])
if not raw or not string.find(raw, '"state":"settling"', 1, true) then return -3 end
if ARGV[4] ~= '' then
  if tonumber(ARGV[4]) < tonumber(redis.call('GET', KEYS[4]) or '0') then return -1 end
  redis.call('SET', KEYS[4], ARGV[4])
end
if tonumber(redis.call('GET', KEYS[1]) or '0') ~= tonumber(ARGV[2]) - 1 then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('HDEL', KEYS[2], ARGV[1])
-- The buyer has no order after all and may buy again: freed with the unit, under the same lock, so
-- nothing later can take back a mark their next purchase makes.
if ARGV[8] ~= '' then redis.call('SREM', KEYS[7], ARGV[8]) end
record(KEYS[6], ARGV[6], ARGV[7], 'given-back', 'u', ARGV[2], 's', ARGV[2])
return 1
`, 7);
type Script = (...keysThenArgs: (string | number)[]) => Promise<number>;

export interface CriticalSectionScripts {
  takeUnitAtomically: Script;
  enterCriticalSection: Script;
  leaveCriticalSection: Script;
  enterFenced: Script;
  leaveFenced: Script;
  giveBackUnit: Script;
}

const bound = new WeakMap<Redis, CriticalSectionScripts>();

/** The critical section's scripts on `client`, each called with its keys, then its arguments. */
export function scripts(client: Redis): CriticalSectionScripts {
  let found = bound.get(client);
  if (!found) {
    const of = (script: RedisScript): Script => (...keysThenArgs) =>
      runScript<number>(client, script, keysThenArgs.slice(0, script.numberOfKeys).map(String), keysThenArgs.slice(script.numberOfKeys));
    found = {
      takeUnitAtomically: of(TAKE_UNIT_ATOMICALLY),
      enterCriticalSection: of(ENTER_CRITICAL_SECTION),
      leaveCriticalSection: of(LEAVE_CRITICAL_SECTION),
      enterFenced: of(ENTER_FENCED),
      leaveFenced: of(LEAVE_FENCED),
      giveBackUnit: of(GIVE_BACK_UNIT),
    };
    bound.set(client, found);
  }
  return found;
}
