/**
 * Malformed purchases get a 4xx JSON error with a stable `code` and change nothing: the stock and
 * the orders are the same after all of them as before.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { PUBLIC_URL, getSaleStats, prepareSale } from "../support/stack";

interface BadRequest {
  readonly name: string;
  readonly method?: string;
  readonly body?: string;
  readonly contentType?: string | null;
  readonly status: number;
  readonly code: string;
}

const json = "application/json";
const huge = JSON.stringify({ buyer: "x".repeat(64 * 1024) });

const BAD_REQUESTS: readonly BadRequest[] = [
  { name: "empty body", body: "", status: 400, code: "invalid_json" },
  { name: "truncated JSON", body: '{"buyer": "a"', status: 400, code: "invalid_json" },
  { name: "single quotes", body: "{'buyer': 'a'}", status: 400, code: "invalid_json" },
  { name: "trailing comma", body: '{"buyer": "a",}', status: 400, code: "invalid_json" },
  { name: "plain text", body: "buy please", status: 400, code: "invalid_json" },
  { name: "JSON null", body: "null", status: 400, code: "invalid_json" },
  { name: "JSON array", body: '[{"buyer": "a"}]', status: 400, code: "invalid_json" },
  { name: "JSON string", body: '"a"', status: 400, code: "invalid_json" },
  { name: "JSON number", body: "42", status: 400, code: "invalid_json" },
  { name: "JSON true", body: "true", status: 400, code: "invalid_json" },
  { name: "empty object", body: "{}", status: 422, code: "invalid_fields" },
  { name: "buyer is a number", body: '{"buyer": 7}', status: 422, code: "invalid_fields" },
  { name: "buyer is null", body: '{"buyer": null}', status: 422, code: "invalid_fields" },
  { name: "buyer is an array", body: '{"buyer": ["a"]}', status: 422, code: "invalid_fields" },
  { name: "buyer is an object", body: '{"buyer": {"id": 1}}', status: 422, code: "invalid_fields" },
  { name: "buyer is a boolean", body: '{"buyer": true}', status: 422, code: "invalid_fields" },
  { name: "buyer is empty", body: '{"buyer": ""}', status: 422, code: "invalid_fields" },
  { name: "buyer is blank", body: '{"buyer": "   "}', status: 422, code: "invalid_fields" },
  { name: "buyer too long", body: JSON.stringify({ buyer: "b".repeat(65) }), status: 422, code: "invalid_fields" },
  { name: "buyer with spaces", body: '{"buyer": "a b"}', status: 422, code: "invalid_fields" },
  { name: "buyer with markup", body: '{"buyer": "<script>"}', status: 422, code: "invalid_fields" },
  { name: "unknown field", body: '{"buyer": "a", "quantity": 2}', status: 422, code: "invalid_fields" },
  { name: "unknown field only", body: '{"price": 0}', status: 422, code: "invalid_fields" },
  { name: "prototype pollution", body: '{"buyer": "a", "__proto__": {"admin": true}}', status: 422, code: "invalid_fields" },
  { name: "sku is a number", body: '{"buyer": "a", "sku": 1}', status: 422, code: "invalid_fields" },
  { name: "sku is empty", body: '{"buyer": "a", "sku": ""}', status: 422, code: "invalid_fields" },
  { name: "unknown sku", body: '{"buyer": "a", "sku": "goods:999"}', status: 404, code: "not_found" },
  { name: "no content type", body: '{"buyer": "a"}', contentType: null, status: 415, code: "unsupported_media_type" },
  { name: "form content type", body: "buyer=a", contentType: "application/x-www-form-urlencoded", status: 415, code: "unsupported_media_type" },
  { name: "text content type", body: '{"buyer": "a"}', contentType: "text/plain", status: 415, code: "unsupported_media_type" },
  { name: "huge body", body: huge, status: 413, code: "payload_too_large" },
  { name: "GET", method: "GET", status: 405, code: "method_not_allowed" },
  { name: "PUT", method: "PUT", body: '{"buyer": "a"}', status: 405, code: "method_not_allowed" },
  { name: "DELETE", method: "DELETE", status: 405, code: "method_not_allowed" },
  { name: "PATCH", method: "PATCH", body: '{"buyer": "a"}', status: 405, code: "method_not_allowed" },
];

describe("POST /api/buy with bad input", () => {
  beforeAll(() => prepareSale({ strategy: "token-lua", workMs: 0 }, 10));

  it("has at least 30 cases", () => {
    expect(BAD_REQUESTS.length).toBeGreaterThanOrEqual(30);
  });

  it.each(BAD_REQUESTS)("$name → $status $code, nothing changes", async (bad) => {
    const before = await getSaleStats();
    const headers: Record<string, string> = {};
    const contentType = bad.contentType === undefined ? json : bad.contentType;
    if (contentType) headers["content-type"] = contentType;
    const response = await fetch(`${PUBLIC_URL}/api/buy`, { method: bad.method ?? "POST", headers, body: bad.body });
    expect(response.status).toBe(bad.status);
    expect(response.headers.get("content-type")).toMatch(/application\/json/);
    const body = (await response.json()) as { code: string; message: string; fieldErrors?: object };
    expect(body.code).toBe(bad.code);
    expect(body.message).toEqual(expect.any(String));
    if (bad.code === "invalid_fields") expect(body.fieldErrors).toBeTypeOf("object");
    const after = await getSaleStats();
    expect({ orders: after.orders, remaining: after.remaining }).toEqual({ orders: before.orders, remaining: before.remaining });
  });

  it("still sells normally afterwards", async () => {
    const response = await fetch(`${PUBLIC_URL}/api/buy`, {
      method: "POST",
      headers: { "content-type": json },
      body: JSON.stringify({ buyer: "after-bad-input" }),
    });
    expect(response.status).toBe(201);
    expect((await getSaleStats()).remaining).toBe(9);
  });
});
