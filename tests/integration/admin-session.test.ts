/**
 * The admin session ends when its holder signs out — on the server, so a copy of the cookie is
 * worthless from then on — and wrong passwords are limited per address.
 */
import { expect, it } from "vitest";
import { SESSION_COOKIE, SESSION_IDLE_MS, takeSignInAttempt } from "@/lib/auth/session";
import { getRedis } from "@/lib/redis";
import { adminFetch, adminPassword, signIn } from "../support/admin";
import { instanceUrl } from "../support/stack";

it("a signed-out cookie is refused, while another session goes on", async () => {
  const cookie = await signIn();
  const other = await signIn();
  expect((await adminFetch(cookie, "GET", "/api/admin/config")).status).toBe(200);
  expect((await adminFetch(cookie, "DELETE", "/api/admin/session")).status).toBe(200);
  // The browser forgets the cookie; a copy kept by anyone else no longer opens anything.
  const refused = await adminFetch(cookie, "GET", "/api/admin/config");
  expect(refused.status).toBe(401);
  expect(refused.json.code).toBe("unauthorized");
  expect((await adminFetch(cookie, "GET", "/admin")).status).toBe(307);
  expect((await adminFetch(other, "GET", "/api/admin/config")).status).toBe(200);
});

/** A sign-in straight to an instance, as nginx would pass on a phone's request: X-Real-IP says who asked. */
const from = (address: string, password: string) =>
  fetch(`${instanceUrl(0)}/api/admin/session`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-real-ip": address },
    body: JSON.stringify({ password }),
  });

it("ten wrong passwords from one address, then that address is refused even the right one for a while; others are not", async () => {
  const guesser = `10.250.${Date.now() % 250}.${process.pid % 250}`;
  for (let guess = 0; guess < 10; guess++) expect((await from(guesser, `guess-${guess}`)).status).toBe(401);
  const limited = await from(guesser, adminPassword());
  expect(limited.status).toBe(429);
  expect(((await limited.json()) as { code: string }).code).toBe("too_many_attempts");
  expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
  expect((await from("10.251.0.1", adminPassword())).status).toBe(200);
});

it("a hundred wrong passwords sent at once from one address get ten checked, the rest 429; right ones use up nothing", async () => {
  const status = (address: string, password: string) => from(address, password).then((response) => response.status);
  // Twelve right passwords from one address, one after another: more than the window's ten.
  const admin = `10.252.${Date.now() % 250}.${process.pid % 250}`;
  for (let i = 0; i < 12; i++) expect(await status(admin, adminPassword())).toBe(200);
  const guesser = `10.253.${Date.now() % 250}.${process.pid % 250}`;
  const statuses = await Promise.all(Array.from({ length: 100 }, (_, guess) => status(guesser, `guess-${guess}`)));
  const counted = statuses.reduce<Record<number, number>>((all, status) => ({ ...all, [status]: (all[status] ?? 0) + 1 }), {});
  expect(counted).toEqual({ 401: 10, 429: 90 });
});

it("a right password whose window expired while it was checked gives nothing back to the next window", async () => {
  // The window of one address ends between its attempt being taken and its right password giving it back.
  const address = `10.254.${Date.now() % 250}.${process.pid % 250}`;
  const key = `locklab:admin:sign-in-failures:${address}`;
  const attempt = await takeSignInAttempt(address);
  await getRedis().del(key);
  await attempt.passwordRight();
  expect(await getRedis().exists(key)).toBe(0);
  // The next window allows its ten wrong passwords and no more.
  for (let guess = 0; guess < 10; guess++) await takeSignInAttempt(address);
  await expect(takeSignInAttempt(address)).rejects.toMatchObject({ code: "too_many_attempts" });
  await getRedis().del(key);
});

it("a session opens nothing from another address than the one it signed in from, and idles out an hour after its last request", async () => {
  const laptop = `10.254.${Date.now() % 250}.${process.pid % 250}`;
  const signedIn = await from(laptop, adminPassword());
  expect(signedIn.status).toBe(200);
  const cookie = signedIn.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`))!.split(";")[0]!;
  const ask = (address: string) => fetch(`${instanceUrl(0)}/api/admin/config`, { headers: { cookie, "x-real-ip": address } });
  expect((await ask(laptop)).status).toBe(200);
  // The same cookie, sniffed and sent from a phone on the same Wi-Fi: refused, and nothing opens.
  const sniffed = await ask("10.255.0.9");
  expect(sniffed.status).toBe(401);
  expect(((await sniffed.json()) as { code: string }).code).toBe("unauthorized");
  // Its listing lapses SESSION_IDLE_MS after the last request from its own address, which starts it again.
  const id = cookie.split("=")[1]!.split(".")[2]!;
  await getRedis().pexpire(`locklab:admin:session:${id}`, 60_000);
  expect((await ask(laptop)).status).toBe(200);
  const left = await getRedis().pttl(`locklab:admin:session:${id}`);
  expect(left).toBeGreaterThan(SESSION_IDLE_MS - 10_000);
  expect(left).toBeLessThanOrEqual(SESSION_IDLE_MS);
  // Idled out (its listing gone): the cookie, still signed and unexpired, opens nothing.
  await getRedis().del(`locklab:admin:session:${id}`);
  expect((await ask(laptop)).status).toBe(401);
});
