import { randomBytes } from "node:crypto";
import { getRedis } from "../redis";
import { redisScript, runScript } from "../redis-script";
import { announceChange } from "../live-signal";

/**
 * Human buyers (workshop mode). A student types a display name once; the store gives them a buyer
 * id kept in a cookie, and the name is kept here for the projector's who-got-one list. Human ids
 * start with HUMAN_PREFIX, so the timeline and the lists can tell a person from a load run.
 */
export const BUYER_COOKIE = "locklab_buyer";
export const HUMAN_PREFIX = "human-";
const NAMES_KEY = "locklab:workshop:names";
/** The buyer each LAN address joined as (one person per address). */
export const ADDRESSES_KEY = "locklab:workshop:addresses";
/** A cookie for a day's workshop; a new name makes a new buyer. */
export const BUYER_COOKIE_MAX_AGE_S = 24 * 60 * 60;

const BUYER_ID = /^human-[a-z0-9]{12}$/;

/**
 * Joins from a LAN address in one step: the address keeps the buyer it already has (a well-formed
 * one) or takes the new id offered, and that buyer gets the name. Read and write apart, six joins
 * sent at once from one phone all read "no buyer yet" and each made a buyer of its own.
 */
const JOIN_FROM_ADDRESS = redisScript(`
-- KEYS[1]: address -> buyer; KEYS[2]: buyer -> name
-- ARGV[1]: the address; ARGV[2]: a new buyer id; ARGV[3]: the name; ARGV[4]: both hashes' TTL (s)
local buyer = redis.call('HGET', KEYS[1], ARGV[1])
-- Only an id this store hands out (human- and 12 of [a-z0-9]) is kept; anything else is replaced.
if not buyer or string.len(buyer) ~= 18 or not string.find(buyer, '^human%-[a-z0-9]+$') then
  buyer = ARGV[2]
  redis.call('HSET', KEYS[1], ARGV[1], buyer)
end
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('HSET', KEYS[2], buyer, ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[4])
return buyer
`, 2);

const newBuyerId = () => `${HUMAN_PREFIX}${randomBytes(9).toString("base64url").toLowerCase().replace(/[^a-z0-9]/g, "0").slice(0, 12)}`;

export interface HumanBuyer {
  readonly buyer: string;
  readonly name: string;
}

export const isHumanBuyer = (buyer: string) => buyer.startsWith(HUMAN_PREFIX);

/** The buyer id a cookie carries, if it is one this store handed out. */
export function buyerFromCookie(value: string | undefined): string | undefined {
  return value && BUYER_ID.test(value) ? value : undefined;
}

/** Registers a student under `name` (already validated) and returns their new buyer id. */
export async function joinWorkshop(name: string, from?: { readonly address: string; readonly local: boolean }): Promise<HumanBuyer> {
  const redis = getRedis();
  // One person per address on the LAN (each phone has its own): joining again from the same
  // address renames that person instead of making a second buyer, so a script that joins in a
  // loop still holds one place in the one-per-buyer rule. The machine itself (the instructor, the
  // tests' phones, load runs) may make as many as it likes.
  let buyer: string;
  if (from && !from.local) {
    buyer = await runScript<string>(redis, JOIN_FROM_ADDRESS, [ADDRESSES_KEY, NAMES_KEY], [from.address, newBuyerId(), name, BUYER_COOKIE_MAX_AGE_S]);
  } else {
    buyer = newBuyerId();
    await redis.multi().hset(NAMES_KEY, buyer, name).expire(NAMES_KEY, BUYER_COOKIE_MAX_AGE_S).exec();
  }
  announceChange();
  return { buyer, name };
}

/** Whether `buyer` is someone who joined (a cookie with an id this store never handed out is not). */
export async function hasJoined(buyer: string): Promise<boolean> {
  return (await getRedis().hexists(NAMES_KEY, buyer)) === 1;
}

export async function getBuyerName(buyer: string): Promise<string | undefined> {
  return (await getRedis().hget(NAMES_KEY, buyer)) ?? undefined;
}

/** The display names of `buyers` (humans only; others map to nothing). */
export async function getBuyerNames(buyers: readonly string[]): Promise<Map<string, string>> {
  const humans = [...new Set(buyers.filter(isHumanBuyer))];
  if (humans.length === 0) return new Map();
  const names = await getRedis().hmget(NAMES_KEY, ...humans);
  return new Map(humans.flatMap((buyer, i) => (names[i] ? [[buyer, names[i] as string] as const] : [])));
}

/** How many students have joined (in the last day: the names go a day after the last join). */
export async function countJoined(): Promise<number> {
  return getRedis().hlen(NAMES_KEY);
}
