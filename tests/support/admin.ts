/** Signs in to the admin API like the dashboard does, and calls it with the session cookie. */
import { PUBLIC_URL } from "./stack";

export function adminPassword(): string {
  const password = process.env.ADMIN_PASSWORD;
  if (!password) throw new Error("ADMIN_PASSWORD is not set; run the tests with `npm test`.");
  return password;
}

export async function signIn(password = adminPassword()): Promise<string> {
  const response = await fetch(`${PUBLIC_URL}/api/admin/session`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ password }),
  });
  if (response.status !== 200) throw new Error(`sign-in answered ${response.status}`);
  const cookie = response.headers.getSetCookie().find((value) => value.startsWith("locklab_admin="));
  if (!cookie) throw new Error("sign-in set no session cookie");
  return cookie.split(";")[0]!;
}

/**
 * A request on a kept-alive connection that nginx closed meanwhile (a reload, which changing the
 * room's people per address makes, closes idle connections) fails before it reaches the server:
 * "other side closed". A browser sends such a request again on a new connection; so does this.
 */
async function fetchOnce(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    if ((error as { cause?: { code?: string } }).cause?.code !== "UND_ERR_SOCKET") throw error;
    return fetch(url, init);
  }
}

export async function adminFetch(cookie: string | null, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetchOnce(`${PUBLIC_URL}${path}`, {
    method,
    headers: {
      ...(cookie ? { cookie } : {}),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
    },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    redirect: "manual",
  });
  const text = await response.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON (CSV export, HTML page)
  }
  return { status: response.status, headers: response.headers, json, text };
}
