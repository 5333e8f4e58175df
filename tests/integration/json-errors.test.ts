/**
 * Every error is JSON with a stable code: the app's, nginx's own (a malformed path it refuses
 * before any app sees it, a body too large, a limit), and a path no route answers. What an
 * instance could only answer bare (an escape that is not UTF-8, a method no route has, headers
 * over Node's limit, an HTTP/1.0 request without Host) is refused or served before it gets there.
 */
import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { expect, it } from "vitest";
import { PUBLIC_URL } from "../support/stack";

/** A raw request, so the path goes out exactly as written (fetch would normalise it). */
function raw(path: string, method = "GET", headers: Record<string, string> = {}): Promise<{ status: number; contentType: string; body: string }> {
  const url = new URL(PUBLIC_URL);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path, method, headers, timeout: 5000 }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, contentType: String(response.headers["content-type"] ?? ""), body }));
    });
    req.on("error", reject);
    req.end();
  });
}

it.each([
  ["/api/sale%00", 400, "bad_request"],
  ["/api/admin/runs/%00", 400, "bad_request"],
  ["/api/nothing-here", 404, "not_found"],
  ["/api/admin/nothing/here", 404, "not_found"],
  ["/api/buy/extra", 404, "not_found"],
  // Escapes that are not UTF-8 (the instance's decoding failed: a plain-text 500), and any byte
  // beyond ASCII: no API path has one.
  ["/api/%ff", 400, "bad_request"],
  ["/api/stock/%ff", 400, "bad_request"],
  ["/api/admin/runs/%ff/cancel", 400, "bad_request"],
  ["/api/%E3%81%82", 400, "bad_request"],
  ["/api/%0a%ff", 400, "bad_request"],
  // A long path ending in "/": the instance's redirect repeats it in its headers, which overflowed
  // nginx's buffer (a 502 blaming a missing instance).
  [`/api/${"x".repeat(2000)}/`, 414, "uri_too_long"],
  // nginx's own error pages are not a way around that check.
  [`/.locklab-errors/${"x".repeat(1100)}/`, 404, "not_found"],
])("%s answers %i with JSON code %s", async (path, status, code) => {
  const answer = await raw(path);
  expect(answer.status).toBe(status);
  expect(answer.contentType).toMatch(/^application\/json/);
  expect(JSON.parse(answer.body)).toMatchObject({ code, message: expect.any(String) });
});

it("a POST to an unknown API path is a JSON 404 too", async () => {
  const answer = await raw("/api/purchase", "POST");
  expect(answer.status).toBe(404);
  expect(JSON.parse(answer.body)).toMatchObject({ code: "not_found" });
});

it("a method no route has is a JSON 405 from nginx, not the instance's bare 400", async () => {
  const answer = await raw("/api/stock", "BREW");
  expect(answer.status).toBe(405);
  expect(JSON.parse(answer.body)).toMatchObject({ code: "method_not_allowed", message: expect.any(String) });
});

it("a method a route does not serve is a JSON 405 naming the ones it does", async () => {
  const answer = await raw("/api/health", "PATCH");
  expect(answer.status).toBe(405);
  expect(JSON.parse(answer.body)).toMatchObject({ code: "method_not_allowed", message: expect.any(String) });
});

it("a locale cookie that is not valid percent-encoding still gets the error's JSON (it was a 500 with no body)", async () => {
  for (const broken of ["%", "%E0%A4%A"]) {
    const answer = await raw("/api/admin/config", "GET", { cookie: `locklab_locale=${broken}` });
    expect(answer.status, broken).toBe(401);
    expect(JSON.parse(answer.body), broken).toMatchObject({ code: expect.any(String), message: expect.any(String) });
  }
});

it("large headers that nginx admits are served, not refused with the instance's bare 431", async () => {
  const big = "a".repeat(7000);
  const answer = await raw("/api/stock", "GET", { "x-one": big, "x-two": big, "x-three": big });
  expect(answer.status).toBe(200);
  expect(JSON.parse(answer.body)).toMatchObject({ sku: "goods:001" });
});

it("headers larger than nginx admits are a JSON 431", async () => {
  const big = "a".repeat(7000);
  const headers = Object.fromEntries([1, 2, 3, 4, 5].map((n) => [`x-big-${n}`, big]));
  const answer = await raw("/api/stock", "GET", headers);
  expect(answer.status).toBe(431);
  expect(JSON.parse(answer.body)).toMatchObject({ code: "header_too_large", message: expect.any(String) });
});

it("an HTTP/1.0 request without a Host header is served (the instance requires one; nginx names it)", async () => {
  const url = new URL(PUBLIC_URL);
  const text = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => socket.write("GET /api/stock HTTP/1.0\r\n\r\n"));
    let received = "";
    socket.setEncoding("utf8");
    socket.setTimeout(5000, () => socket.destroy(new Error("no answer in 5 s")));
    socket.on("data", (chunk: string) => (received += chunk));
    socket.on("end", () => resolve(received));
    socket.on("error", reject);
  });
  expect(text.split("\r\n")[0]).toMatch(/^HTTP\/1\.1 200 /);
  expect(JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4))).toMatchObject({ sku: "goods:001" });
});
