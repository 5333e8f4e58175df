import { createHmac, timingSafeEqual } from "node:crypto";
import { getEnv } from "../env";
import { AppError } from "../errors";

/**
 * The admin session: one password from env, and a stateless signed cookie that every instance
 * can verify (`v1.<expiresAtMs>.<hmac>`). httpOnly + SameSite=Strict; mutating calls are
 * also checked for a same-origin request (see ./guard).
 */
export const SESSION_COOKIE = "locklab_admin";
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

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

function equal(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

export function checkPassword(candidate: string): boolean {
  const expected = getEnv().ADMIN_PASSWORD;
  if (!expected) throw new AdminNotConfiguredError();
  // Compare digests so the comparison time does not depend on where the strings differ.
  const digest = (value: string) => createHmac("sha256", "pw").update(value).digest("hex");
  return equal(digest(candidate), digest(expected));
}

export function createSessionToken(now = Date.now()): string {
  const payload = `v1.${now + SESSION_TTL_MS}`;
  return `${payload}.${sign(payload)}`;
}

export function isValidSessionToken(token: string | undefined, now = Date.now()): boolean {
  if (!token) return false;
  const parts = token.split(".");
  if (parts.length !== 3 || parts[0] !== "v1") return false;
  const expiresAt = Number(parts[1]);
  if (!Number.isFinite(expiresAt) || expiresAt < now) return false;
  try {
    return equal(parts[2] ?? "", sign(`${parts[0]}.${parts[1]}`));
  } catch {
    return false;
  }
}

export function sessionCookieOptions(secure: boolean) {
  return { httpOnly: true, sameSite: "strict" as const, path: "/", secure, maxAge: SESSION_TTL_MS / 1000 };
}
