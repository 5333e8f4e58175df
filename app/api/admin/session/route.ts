import { cookies } from "next/headers";
import { assertSameOrigin } from "@/lib/auth/guard";
import { SESSION_COOKIE, checkPassword, createSession, endSession, sessionCookieOptions, takeSignInAttempt } from "@/lib/auth/session";
import { clientAddress } from "@/lib/http/client-address";
import { storeCall } from "@/lib/store-call";
import { HttpError, methodNotAllowed, publicRoute } from "@/lib/http/errors";
import { readJsonBody } from "@/lib/http/read-json";
import { sessionCreateSchema } from "@/lib/validations/session";

export const dynamic = "force-dynamic";

/** Sign in with the admin password; sets the httpOnly session cookie. */
export const POST = publicRoute(async (request) => {
  assertSameOrigin(request);
  const { password } = sessionCreateSchema.parse(await readJsonBody(request));
  const address = clientAddress(request);
  const attempt = await storeCall(() => takeSignInAttempt(address));
  if (!checkPassword(password)) throw new HttpError(401, "invalid_password", "That is not the admin password.");
  await storeCall(() => attempt.passwordRight());
  const secure = new URL(request.url).protocol === "https:" && request.headers.get("x-forwarded-proto") !== "http";
  (await cookies()).set(SESSION_COOKIE, await storeCall(() => createSession(address)), sessionCookieOptions(secure));
  return Response.json({ signedIn: true });
});

/** Sign out: the session ends on the server too, so a copy of the cookie is worthless. */
export const DELETE = publicRoute(async (request) => {
  assertSameOrigin(request);
  const jar = await cookies();
  await storeCall(() => endSession(jar.get(SESSION_COOKIE)?.value));
  jar.delete(SESSION_COOKIE);
  return Response.json({ signedIn: false });
});

export const GET = methodNotAllowed("POST, DELETE");
export const PUT = methodNotAllowed("POST, DELETE");
export const PATCH = methodNotAllowed("POST, DELETE");
