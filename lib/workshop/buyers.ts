import { randomBytes } from "node:crypto";
import { getEnv } from "../env";
import { getRedis } from "../redis";
import { redisScript, runScript } from "../redis-script";
import { announceChange } from "../live-signal";
import { AppError } from "../errors";
import { getStackStatus, sizeRoomLimits } from "../stack/control";

/**
 * Human buyers (workshop mode). A student types a display name once; the store gives them a buyer
 * id kept in a cookie, and the name is kept here for the projector's who-got-one list. Human ids
 * start with HUMAN_PREFIX, so the timeline and the lists can tell a person from a load run.
 *
 * One person per phone, even with a shell. A person is a cookie this store handed out, bound to the
 * network address it joined from:
 * - a purchase from the LAN buys as the person its cookie names, and only from that address (a
 *   laptop that joined from 30 addresses cannot buy with all 30 people from one);
 * - an address holds at most `peoplePerAddress` people (the projector sets it for the room): 1
 *   where every phone has its own address, more where the class arrives through one (a venue's NAT,
 *   a proxy, Docker Desktop's port mapping). At 1, joining again from a full address renames the
 *   person already there (a lost cookie, or a script's loop, is still that one person); above 1, a
 *   join beyond the limit is refused, and a join with a person's cookie renames that person.
 * - the instructor sees how many people each address holds and removes or renames anyone.
 * What a determined student can still do: behind a shared address, join up to the room's limit
 * under invented names (each one a person the projector lists, and the instructor can remove); on a
 * Wi-Fi of its own, hold as many people as addresses it can take, buying each from its own.
 */
export const BUYER_COOKIE = "locklab_buyer";
export const HUMAN_PREFIX = "human-";
const NAMES_KEY = "locklab:workshop:names";
/** The address each person joined from (buyer → address). */
export const PEOPLE_KEY = "locklab:workshop:people";
/** How many people each address holds (address → count). */
export const ADDRESS_COUNTS_KEY = "locklab:workshop:address-counts";
/** The person who last joined from each address (address → buyer): who a join at a full address of one renames. */
export const ADDRESSES_KEY = "locklab:workshop:addresses";
/** The room's own settings (the projector's). */
const ROOM_KEY = "locklab:workshop:room";
/** A cookie for a day's workshop; a new name makes a new buyer. */
export const BUYER_COOKIE_MAX_AGE_S = 24 * 60 * 60;

const BUYER_ID = /^human-[a-z0-9]{12}$/;

/**
 * A join from a LAN address, in one step (read and write apart, six joins sent at once from one
 * phone all read "room here" and each made a buyer of its own). Answers {'ok', buyer} or
 * {'full', people at the address}.
 */
const JOIN_FROM_ADDRESS = redisScript(`
-- KEYS[1]: buyer -> address; KEYS[2]: buyer -> name; KEYS[3]: address -> people; KEYS[4]: address -> last buyer
-- ARGV[1]: the address; ARGV[2]: the person's cookie, or ''; ARGV[3]: a new buyer id; ARGV[4]: the name;
-- ARGV[5]: people per address; ARGV[6]: the hashes' TTL (s)
local address, cookie, cap = ARGV[1], ARGV[2], tonumber(ARGV[5])
local here = tonumber(redis.call('HGET', KEYS[3], address) or '0')
local buyer
if cookie ~= '' and redis.call('HEXISTS', KEYS[2], cookie) == 1 then
  -- A person joining again: renamed where they are, or moved here if this address has room.
  local at = redis.call('HGET', KEYS[1], cookie)
  if at == address then
    buyer = cookie
  elseif here < cap then
    if at then redis.call('HINCRBY', KEYS[3], at, -1) end
    redis.call('HINCRBY', KEYS[3], address, 1)
    redis.call('HSET', KEYS[1], cookie, address)
    buyer = cookie
  else
    return {'full', tostring(here)}
  end
elseif here < cap then
  buyer = ARGV[3]
  redis.call('HSET', KEYS[1], buyer, address)
  redis.call('HINCRBY', KEYS[3], address, 1)
elseif cap == 1 then
  -- One person per address: the one here (only an id this store hands out, still joined), renamed.
  local last = redis.call('HGET', KEYS[4], address)
  if last and string.len(last) == 18 and string.find(last, '^human%-[a-z0-9]+$') and redis.call('HGET', KEYS[1], last) == address then
    buyer = last
  else
    return {'full', tostring(here)}
  end
else
  return {'full', tostring(here)}
end
redis.call('HSET', KEYS[4], address, buyer)
redis.call('HSET', KEYS[2], buyer, ARGV[4])
for i = 1, 4 do redis.call('EXPIRE', KEYS[i], ARGV[6]) end
return {'ok', buyer}
`, 4);

/** Removes a person: their name and their place at their address. Answers 1, or 0 when there was none. */
const REMOVE_PERSON = redisScript(`
-- KEYS as JOIN_FROM_ADDRESS; ARGV[1]: the buyer
local had = redis.call('HDEL', KEYS[2], ARGV[1])
local at = redis.call('HGET', KEYS[1], ARGV[1])
if at then
  redis.call('HDEL', KEYS[1], ARGV[1])
  if tonumber(redis.call('HINCRBY', KEYS[3], at, -1)) <= 0 then redis.call('HDEL', KEYS[3], at) end
  if redis.call('HGET', KEYS[4], at) == ARGV[1] then redis.call('HDEL', KEYS[4], at) end
end
return had
`, 4);

/** A new name for a person still joined (never brings back one removed meanwhile). */
const RENAME_PERSON = redisScript(`
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
`, 1);

const ROOM_KEYS = [PEOPLE_KEY, NAMES_KEY, ADDRESS_COUNTS_KEY, ADDRESSES_KEY];

const newBuyerId = () => `${HUMAN_PREFIX}${randomBytes(9).toString("base64url").toLowerCase().replace(/[^a-z0-9]/g, "0").slice(0, 12)}`;

export interface HumanBuyer {
  readonly buyer: string;
  readonly name: string;
}

/** A join the address cannot take: it holds as many people as the room allows per address. */
export class AddressFullError extends AppError {
  override readonly name = "AddressFullError";
  readonly status = 409;
  readonly code = "address_full";
  override readonly details: { readonly people: number; readonly peoplePerAddress: number };
  constructor(details: { readonly people: number; readonly peoplePerAddress: number }) {
    super(`this network address already holds ${details.people} of the ${details.peoplePerAddress} people the room allows per address: ask the instructor`);
    this.details = details;
  }
}

/** No person joined under that id (never, or removed since). */
export class PersonNotFoundError extends AppError {
  override readonly name = "PersonNotFoundError";
  readonly status = 404;
  readonly code = "person_not_found";
  constructor(buyer: string) {
    super(`nobody in the room is ${buyer.slice(0, 40)}`);
  }
}

export const isHumanBuyer = (buyer: string) => buyer.startsWith(HUMAN_PREFIX);

/** The buyer id a cookie carries, if it is one this store handed out. */
export function buyerFromCookie(value: string | undefined): string | undefined {
  return value && BUYER_ID.test(value) ? value : undefined;
}

/** How many people may join from one address now: the projector's setting, else ROOM_PEOPLE_PER_ADDRESS. */
export async function getPeoplePerAddress(): Promise<number> {
  const stored = Number(await getRedis().hget(ROOM_KEY, "peoplePerAddress"));
  return Number.isInteger(stored) && stored >= 1 ? stored : getEnv().ROOM_PEOPLE_PER_ADDRESS;
}

/**
 * Sets the room's people per address, and sizes nginx's per-address ceilings for it (through the
 * stack runner; where there is none, as with a bare Compose, nginx keeps what it started with and
 * the projector says so).
 */
export async function setPeoplePerAddress(people: number): Promise<void> {
  await getRedis().hset(ROOM_KEY, "peoplePerAddress", String(people));
  await sizeRoomLimits(people).catch(() => undefined);
  announceChange();
}

/** What nginx's per-address ceilings are sized for now: the runner's word, else ROOM_PEOPLE_PER_ADDRESS. */
async function getSizedFor(): Promise<number> {
  const status = await getStackStatus().catch(() => undefined);
  return status?.nginx.peoplePerAddress ?? getEnv().ROOM_PEOPLE_PER_ADDRESS;
}

/**
 * Registers a student under `name` (already validated). From the LAN the person is bound to the
 * address (see the rule above); `cookie` is the person this phone already is, if any. The machine
 * itself (the instructor, the tests' phones, load runs) may make as many as it likes.
 */
export async function joinWorkshop(name: string, from?: { readonly address: string; readonly local: boolean; readonly cookie?: string }): Promise<HumanBuyer> {
  const redis = getRedis();
  let buyer: string;
  if (from && !from.local) {
    const peoplePerAddress = await getPeoplePerAddress();
    const [outcome, value] = await runScript<[string, string]>(redis, JOIN_FROM_ADDRESS, ROOM_KEYS,
      [from.address, from.cookie ?? "", newBuyerId(), name, peoplePerAddress, BUYER_COOKIE_MAX_AGE_S]);
    if (outcome !== "ok") throw new AddressFullError({ people: Number(value), peoplePerAddress });
    buyer = value;
  } else {
    buyer = newBuyerId();
    await redis.multi().hset(NAMES_KEY, buyer, name).expire(NAMES_KEY, BUYER_COOKIE_MAX_AGE_S).exec();
  }
  announceChange();
  return { buyer, name };
}

/** Whether `buyer` joined, and the address it joined from (none for a join from this machine). */
export async function getPerson(buyer: string): Promise<{ readonly joined: boolean; readonly address?: string }> {
  const replies = await getRedis().multi().hexists(NAMES_KEY, buyer).hget(PEOPLE_KEY, buyer).exec();
  const [joined, address] = (replies ?? []).map(([error, value]) => {
    if (error) throw error;
    return value;
  }) as [number, string | null];
  return { joined: joined === 1, ...(address ? { address } : {}) };
}

/** Whether `buyer` is someone who joined (a cookie with an id this store never handed out is not). */
export async function hasJoined(buyer: string): Promise<boolean> {
  return (await getPerson(buyer)).joined;
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

/** The room as the projector shows it: the limit per address, everyone who joined, and how many per address. */
export interface RoomView {
  readonly peoplePerAddress: number;
  /** What nginx's per-address ceilings are sized for (the runner's word, else ROOM_PEOPLE_PER_ADDRESS). */
  readonly sizedFor: number;
  readonly people: readonly RoomPerson[];
  /** Addresses with people, the fullest first. */
  readonly addresses: readonly { readonly address: string; readonly people: number }[];
}

export interface RoomPerson {
  readonly buyer: string;
  readonly name: string;
  /** The address the person joined from; absent for this machine's own joins. */
  readonly address?: string;
}

/** Everyone who joined, with their address, and the room's limit: the projector's moderation list. */
export async function getRoom(): Promise<RoomView> {
  const redis = getRedis();
  const [names, addresses, peoplePerAddress, sizedFor] = await Promise.all([redis.hgetall(NAMES_KEY), redis.hgetall(PEOPLE_KEY), getPeoplePerAddress(), getSizedFor()]);
  const people = Object.entries(names).map(([buyer, name]) => ({ buyer, name, ...(addresses[buyer] ? { address: addresses[buyer] } : {}) }));
  const counts = new Map<string, number>();
  for (const person of people) if (person.address) counts.set(person.address, (counts.get(person.address) ?? 0) + 1);
  return {
    peoplePerAddress,
    sizedFor,
    people,
    addresses: [...counts].map(([address, count]) => ({ address, people: count })).sort((a, b) => b.people - a.people || a.address.localeCompare(b.address)),
  };
}

/** Removes a person (their orders stay): their cookie buys nothing more, and their place at the address is free. */
export async function removePerson(buyer: string): Promise<boolean> {
  const removed = (await runScript<number>(getRedis(), REMOVE_PERSON, ROOM_KEYS, [buyer])) === 1;
  if (removed) announceChange();
  return removed;
}

/** Renames a person who joined (a name the room should not see); false when there is none. */
export async function renamePerson(buyer: string, name: string): Promise<boolean> {
  const renamed = (await runScript<number>(getRedis(), RENAME_PERSON, [NAMES_KEY], [buyer, name])) === 1;
  if (renamed) announceChange();
  return renamed;
}
