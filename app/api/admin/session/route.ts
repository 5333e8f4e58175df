import { cookies } from "next/headers";
import { z } from "zod";
import { assertSameOrigin } from "@/lib/auth/guard";
import { SESSION_COOKIE, checkPassword, createSessionToken, sessionCookieOptions } from "@/lib/auth/session";
import { HttpError, errorResponse, methodNotAllowed } from "@/lib/http/errors";
import { readJsonBody } from "@/lib/http/read-json";

export const dynamic = "force-dynamic";

const signInSchema = z.object({ password: z.string().min(1).max(256) }).strict();

/** Sign in with the admin password; sets the httpOnly session cookie. */
export async function POST(request: Request): Promise<Response> {
  try {
    assertSameOrigin(request);
    const { password } = signInSchema.parse(await readJsonBody(request));
    if (!checkPassword(password)) throw new HttpError(401, "invalid_password", "That is not the admin password.");
    const secure = new URL(request.url).protocol === "https:" && request.headers.get("x-forwarded-proto") !== "http";
    (await cookies()).set(SESSION_COOKIE, createSessionToken(), sessionCookieOptions(secure));
    return Response.json({ signedIn: true });
  } catch (error) {
    return errorResponse(error);
  }
}

/** Sign out. */
export async function DELETE(request: Request): Promise<Response> {
  try {
    assertSameOrigin(request);
    (await cookies()).delete(SESSION_COOKIE);
    return Response.json({ signedIn: false });
  } catch (error) {
    return errorResponse(error);
  }
}

export const GET = methodNotAllowed("POST, DELETE");
