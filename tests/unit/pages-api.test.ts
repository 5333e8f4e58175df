/**
 * The Pages Router's API routes (lib/http/pages-api.ts) answer as the App Router's do: JSON with a
 * stable code for every refusal, a 405 naming the methods served, the request's language, and a
 * body read with the same limits. On a real Node HTTP server on loopback, no stack needed.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpError } from "@/lib/http/errors";
import { pagesApiRoute } from "@/lib/http/pages-api";
import { MAX_BODY_BYTES, readNodeJsonBody } from "@/lib/http/read-json";
import { LOCALE_HEADER } from "@/lib/i18n/locales";
import { SoldOutError } from "@/lib/purchase/errors";

const route = pagesApiRoute({
  async POST(request) {
    const body = (await readNodeJsonBody(request, request.node)) as { sell?: boolean };
    if (!body.sell) throw new SoldOutError("goods:001");
    return { status: 201, body: { status: "bought", buyer: request.cookie("locklab_buyer") ?? null }, headers: { "x-instance": "test" } };
  },
  GET() {
    throw new HttpError(409, "drop_closed", "this drop is closed");
  },
});

let server: http.Server;
let base: string;
beforeAll(async () => {
  server = http.createServer((req, res) => void route(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const post = (body: string, headers: Record<string, string> = {}) =>
  fetch(base, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });

describe("a Pages API route", () => {
  it("answers its handler's JSON with its status, headers and length", async () => {
    const response = await post(JSON.stringify({ sell: true }), { cookie: "a=1; locklab_buyer=human-abc" });
    expect(response.status).toBe(201);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("x-instance")).toBe("test");
    const text = await response.text();
    expect(Number(response.headers.get("content-length"))).toBe(Buffer.byteLength(text));
    expect(JSON.parse(text)).toEqual({ status: "bought", buyer: "human-abc" });
  });

  it("answers what the handler throws as the JSON error, in the request's language", async () => {
    const english = await post(JSON.stringify({ sell: false }));
    expect(english.status).toBe(409);
    expect(await english.json()).toEqual({ code: "sold_out", message: "goods:001 is sold out" });
    const korean = await fetch(base, { headers: { [LOCALE_HEADER]: "ko" } });
    expect(korean.status).toBe(409);
    expect(await korean.json()).toEqual({ code: "drop_closed", message: "이 한정 판매는 종료되었습니다. 강사가 다음 한정 판매를 시작할 때까지 기다리세요." });
  });

  it("refuses a method it does not serve with the JSON 405 naming the ones it does", async () => {
    for (const method of ["PUT", "PATCH", "DELETE", "OPTIONS"]) {
      const response = await fetch(base, { method });
      expect(response.status, method).toBe(405);
      expect(response.headers.get("allow")).toBe("GET, POST");
      expect(await response.json()).toMatchObject({ code: "method_not_allowed", message: "Use GET, POST on this route." });
    }
  });

  it("refuses a body as the App Router's routes do: media type, size, and JSON", async () => {
    const cases: [string, Record<string, string>, number, string][] = [
      ['{"sell":true}', { "content-type": "text/plain" }, 415, "unsupported_media_type"],
      ["", {}, 400, "invalid_json"],
      ["{not json", {}, 400, "invalid_json"],
      ["[1, 2]", {}, 400, "invalid_json"],
      [JSON.stringify({ sell: true, pad: "x".repeat(MAX_BODY_BYTES) }), {}, 413, "payload_too_large"],
    ];
    for (const [body, headers, status, code] of cases) {
      const response = await post(body, headers);
      expect(response.status, `${code}: ${body.slice(0, 20)}`).toBe(status);
      expect(await response.json()).toMatchObject({ code });
    }
  });

  it("refuses a body larger than the limit that declares no length (sent in chunks)", async () => {
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(base, { method: "POST", headers: { "content-type": "application/json" } }, (res) => {
        let body = "";
        res.on("data", (chunk) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on("error", reject);
      for (let i = 0; i < 20; i++) req.write(`{"pad":"${"y".repeat(1024)}",`);
      req.end("}");
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({ code: "payload_too_large" });
  });
});
