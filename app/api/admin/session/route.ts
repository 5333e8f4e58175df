import { cookies } from "next/headers";
import { assertSameOrigin } from "@/lib/auth/guard";
import { SESSION_COOKIE, checkPassword, createSessionToken, sessionCookieOptions } from "@/lib/auth/session";
import { HttpError, methodNotAllowed, publicRoute } from "@/lib/http/errors";
import { readJsonBody } from "@/lib/http/read-json";
import { sessionCreateSchema } from "@/lib/validations/session";

export const dynamic = "force-dynamic";

/** Sign in with the admin password; sets the httpOnly session cookie. */
export const POST = publicRoute(async (request) => {
  assertSameOrigin(request);
  const { password } = sessionCreateSchema.parse(await readJsonBody(request));
  if (!checkPassword(password)) throw new HttpError(401, "invalid_password", "That is not the admin password.");
  const secure = new URL(request.url).protocol === "https:" && request.headers.get("x-forwarded-proto") !== "http";
  (await cookies()).set(SESSION_COOKIE, createSessionToken(), sessionCookieOptions(secure));
  return Response.json({ signedIn: true });
});

/** Sign out. */
export const DELETE = publicRoute(async (request) => {
  assertSameOrigin(request);
  (await cookies()).delete(SESSION_COOKIE);
  return Response.json({ signedIn: false });
});

export const GET = methodNotAllowed("POST, DELETE");
