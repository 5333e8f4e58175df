/**
 * Every error is JSON with a stable code: the app's, nginx's own (a malformed path it refuses
 * before any app sees it, a body too large, a limit), and a path no route answers.
 */
import { request as httpRequest } from "node:http";
import { expect, it } from "vitest";
import { PUBLIC_URL } from "../support/stack";

/** A raw request, so the path goes out exactly as written (fetch would normalise it). */
function raw(path: string, method = "GET"): Promise<{ status: number; contentType: string; body: string }> {
  const url = new URL(PUBLIC_URL);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path, method, timeout: 5000 }, (response) => {
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
