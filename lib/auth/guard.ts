import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { localeOfRequest } from "../i18n/locales";
import { HttpError, errorResponse } from "../http/errors";
import { clientAddress } from "../http/client-address";
import { storeCall } from "../store-call";
import { SESSION_COOKIE, isSignedIn } from "./session";

const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * Every /api/admin route calls this first. Without a valid session: 401, and nothing changes.
 * Mutating calls must also come from this origin: a cross-site form or fetch is refused (403),
 * on top of the SameSite=Strict cookie.
 */
export async function requireAdmin(request: Request): Promise<void> {
  const token = (await cookies()).get(SESSION_COOKIE)?.value;
  if (!(await storeCall(() => isSignedIn(token, clientAddress(request))))) {
    throw new HttpError(401, "unauthorized", "Sign in as admin first (POST /api/admin/session).");
  }
  if (MUTATING.has(request.method)) assertSameOrigin(request);
}

/**
 * An /api/admin route handler: `requireAdmin` runs before it, and whatever either throws becomes
 * the JSON error every route answers with (lib/http/errors.ts). Past the session check the caller
 * is an admin, and a failure of our servers is told in its own words, as the admin pages show it;
 * before it (the session cannot even be read) the caller is anyone, and is told by the code.
 */
export function adminRoute<Context = unknown>(
  handler: (request: Request, context: Context) => Promise<Response>,
): (request: Request, context: Context) => Promise<Response> {
  return async (request, context) => {
    let admin = false;
    try {
      await requireAdmin(request);
      admin = true;
      return await handler(request, context);
    } catch (error) {
      return errorResponse(error, {}, localeOfRequest(request), { admin });
    }
  };
}

export function assertSameOrigin(request: Request): void {
  const origin = request.headers.get("origin");
  const site = request.headers.get("sec-fetch-site");
  if (site && site !== "same-origin" && site !== "none") {
    throw new HttpError(403, "cross_site_request", "Admin changes must come from the admin pages themselves.");
  }
  if (origin) {
    const host = request.headers.get("x-forwarded-host") ?? request.headers.get("host");
    let originHost: string;
    try {
      originHost = new URL(origin).host;
    } catch {
      originHost = "";
    }
    if (originHost !== host) {
      throw new HttpError(403, "cross_site_request", "Admin changes must come from the admin pages themselves.");
    }
  }
}

/** For admin pages (server components): redirect to sign-in without a valid session. */
export async function requireAdminPage(next: string): Promise<void> {
  const token = (await cookies()).get(SESSION_COOKIE)?.value;
  if (!(await isSignedIn(token, clientAddress({ headers: await headers() })))) redirect(`/admin/login?next=${encodeURIComponent(next)}`);
}
