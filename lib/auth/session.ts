import { createHmac, randomBytes } from "node:crypto";
import { getEnv } from "../env";
import { AppError } from "../errors";
import { getRedis } from "../redis";
import { redisScript, runScript } from "../redis-script";
import { sameSecret } from "../same-secret";

/**
 * The admin session: one password from env, and a signed cookie every instance can verify
 * (`v2.<expiresAtMs>.<session id>.<hmac>`) whose session id must also still be listed in Redis,
 * so signing out ends the session for good (a copied cookie stops working with it).
 * httpOnly + SameSite=Strict; mutating calls are also checked for a same-origin request (see ./guard).
 *
 * The listing holds the address the session signed in from (as nginx saw it): the cookie opens
 * nothing from another address, so one sniffed on a venue's Wi-Fi (--lan-admin) is no use to the
 * phone that sniffed it. It lapses after SESSION_IDLE_MS without a request (an open dashboard
 * asks every few seconds), and the cookie itself after SESSION_TTL_MS whatever happens.
 */
export const SESSION_COOKIE = "locklab_admin";
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
export const SESSION_IDLE_MS = 60 * 60 * 1000;

export class AdminNotConfiguredError extends AppError {
  override name = "AdminNotConfiguredError";
  readonly status = 503;
  readonly code = "admin_not_configured";
  constructor() {
    super("ADMIN_PASSWORD is not set: the admin area is closed until it is (npm run demo sets one).");
  }
}

function secret(): Buffer {
  const env = getEnv();
  if (!env.ADMIN_PASSWORD) throw new AdminNotConfiguredError();
  return createHmac("sha256", env.SESSION_SECRET ?? "lock-lab-session").update(env.ADMIN_PASSWORD).digest();
}

function sign(payload: string): string {
  return createHmac("sha256", secret()).update(payload).digest("base64url");
}

export function checkPassword(candidate: string): boolean {
  const expected = getEnv().ADMIN_PASSWORD;
  if (!expected) throw new AdminNotConfiguredError();
  // Compare digests so the comparison time does not depend on where the strings differ.
  const digest = (value: string) => createHmac("sha256", "pw").update(value).digest("hex");
  return sameSecret(digest(candidate), digest(expected));
}

const sessionKey = (id: string) => `locklab:admin:session:${id}`;

/** A new session for `address`, listed in Redis until it idles out, expires or is signed out. */
export async function createSession(address: string, now = Date.now()): Promise<string> {
  const id = randomBytes(18).toString("base64url");
  const payload = `v2.${now + SESSION_TTL_MS}.${id}`;
  await getRedis().set(sessionKey(id), `at ${address}`, "PX", SESSION_IDLE_MS);
  return `${payload}.${sign(payload)}`;
}

/** The session id a token carries, when its signature and expiry hold (nothing asked of Redis). */
function signedSessionId(token: string | undefined, now: number): string | undefined {
  if (!token) return undefined;
  const parts = token.split(".");
  if (parts.length !== 4 || parts[0] !== "v2") return undefined;
  const expiresAt = Number(parts[1]);
  if (!Number.isFinite(expiresAt) || expiresAt < now) return undefined;
  try {
    return sameSecret(parts[3], sign(`${parts[0]}.${parts[1]}.${parts[2]}`)) ? parts[2] : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A signed, unexpired token whose session has not been signed out nor idled out, asked from the
 * address it signed in from; each such request starts its idle time again.
 */
export async function isSignedIn(token: string | undefined, address: string, now = Date.now()): Promise<boolean> {
  const id = signedSessionId(token, now);
  if (id === undefined) return false;
  const redis = getRedis();
  if ((await redis.get(sessionKey(id))) !== `at ${address}`) return false;
  await redis.pexpire(sessionKey(id), SESSION_IDLE_MS);
  return true;
}

/** Ends the session the token names (signing out): the cookie is worthless from here on. */
export async function endSession(token: string | undefined): Promise<void> {
  const id = signedSessionId(token, Date.now());
  if (id) await getRedis().del(sessionKey(id));
}

/**
 * Sign-in attempts: at most SIGN_IN_FAILURES_ALLOWED wrong passwords per address per window (the
 * machine itself included: the admin pages answer there by default), then 429 until it passes.
 */
const SIGN_IN_FAILURES_ALLOWED = 10;
const SIGN_IN_WINDOW_MS = 60_000;
const failuresKey = (address: string) => `locklab:admin:sign-in-failures:${address}`;

/**
 * A right password's attempt given back, only into the window that counted it: when that window
 * has expired meanwhile, there is nothing to give back to. (A plain DECR there made the counter
 * anew at -1, with no expiry: the next window allowed one wrong password more.)
 */
const GIVE_BACK_ATTEMPT = redisScript(`
-- KEYS[1]: the address's failures counter. Only a live counter above 0 is decremented.
if tonumber(redis.call('GET', KEYS[1]) or '0') > 0 then return redis.call('DECR', KEYS[1]) end
return 0
`, 1);

export class TooManySignInsError extends AppError {
  override name = "TooManySignInsError";
  readonly status = 429;
  readonly code = "too_many_attempts";
  override readonly retryAfterS: number;
  constructor(retryInMs: number) {
    super(`too many wrong passwords from this address; try again in ${Math.ceil(retryInMs / 1000)} s`);
    this.retryAfterS = Math.max(1, Math.ceil(retryInMs / 1000));
  }
}

/**
 * Takes one of `address`'s sign-in attempts before its password is checked, and throws while the
 * window's are used up. Counted first, in one step: read first and counted after a wrong password,
 * a thousand attempts sent at once all read "none yet" and all had their password checked. A right
 * password gives its attempt back (`passwordRight`), so only wrong ones use up the window.
 */
export async function takeSignInAttempt(address: string): Promise<{ passwordRight(): Promise<void> }> {
  const redis = getRedis();
  const key = failuresKey(address);
  // The window starts with its first attempt and is not pushed back by the next ones.
  const [[, taken], , [, ttl]] = (await redis.multi().incr(key).pexpire(key, SIGN_IN_WINDOW_MS, "NX").pttl(key).exec()) as [[unknown, number], unknown, [unknown, number]];
  if (taken > SIGN_IN_FAILURES_ALLOWED) throw new TooManySignInsError(ttl > 0 ? ttl : SIGN_IN_WINDOW_MS);
  return { passwordRight: async () => void (await runScript(redis, GIVE_BACK_ATTEMPT, [key])) };
}

export function sessionCookieOptions(secure: boolean) {
  return { httpOnly: true, sameSite: "strict" as const, path: "/", secure, maxAge: SESSION_TTL_MS / 1000 };
}
