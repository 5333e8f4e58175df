import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { AdminNotConfiguredError } from "@/lib/auth/session";
import { HttpError, errorResponse } from "@/lib/http/errors";
import { publicErrorMessage } from "@/lib/i18n/api-errors";
import { StackControlError } from "@/lib/stack/control";
import { LockBusyError, LockLostError, LockUnavailableError } from "@/lib/locks/types";
import { StoreUnavailableError } from "@/lib/errors";
import { SoldOutError, UnknownProductError } from "@/lib/purchase/errors";
import { SaleSwitchingError } from "@/lib/purchase/take-unit";
import { RunConflictError, RunNotFoundError, RunTokenError } from "@/lib/runs/errors";

async function answer(error: unknown) {
  const response = errorResponse(error);
  return { status: response.status, retryAfter: response.headers.get("retry-after"), body: (await response.json()) as { code: string; message: string } };
}

describe("errorResponse", () => {
  it.each([
    [new SoldOutError("goods:001"), 409, "sold_out", null],
    [new UnknownProductError("goods:9"), 404, "not_found", null],
    [new LockBusyError("goods:001", 100), 423, "busy", "1"],
    [new SaleSwitchingError("goods:001"), 423, "busy", "1"],
    [new LockUnavailableError("node down"), 503, "unavailable", "1"],
    [new StoreUnavailableError("pg down"), 503, "unavailable", "1"],
    [new LockLostError("goods:001"), 503, "lock_lost", null],
    [new RunNotFoundError(7), 404, "not_found", null],
    [new RunConflictError("run_in_progress", "busy stack"), 409, "run_in_progress", null],
    [new RunTokenError(), 401, "unauthorized", null],
    [new AdminNotConfiguredError(), 503, "admin_not_configured", null],
    [new StackControlError("no answer"), 503, "stack_control_unavailable", null],
    [new HttpError(413, "body_too_large", "too big"), 413, "body_too_large", null],
  ] as const)("%s answers %i %s", async (error, status, code, retryAfter) => {
    const got = await answer(error);
    expect(got.status).toBe(status);
    expect(got.body.code).toBe(code);
    // A refusal is said in the error's own words; a failure of our servers (5xx) by its code alone,
    // to the public (tests/unit/public-errors.test.ts), and in its own words to an admin.
    if (status < 500) expect(got.body.message).toBe((error as Error).message);
    else {
      expect(got.body.message).toBe(publicErrorMessage(code, { reason: "server", ...(error as { details?: Record<string, string> }).details }, "en"));
      expect(((await errorResponse(error, {}, "en", { admin: true }).json()) as { message: string }).message).toBe((error as Error).message);
    }
    expect(got.retryAfter).toBe(retryAfter);
  });

  it("a store that did not answer, thrown bare by a path with no storeCall, is 503 unavailable, not a 500", async () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:55432"), { code: "ECONNREFUSED" });
    for (const error of [refused, new Error("Connection is closed."), new Error("Can't reach database server at 127.0.0.1:55432")]) {
      const got = await answer(error);
      expect(got.status, error.message).toBe(503);
      expect(got.body.code).toBe("unavailable");
      expect(got.retryAfter).toBe("1");
    }
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    expect((await answer(new TypeError("x is not a function"))).status).toBe(500);
    log.mockRestore();
  });

  it("a validation error is 422 with the fields that failed", async () => {
    const parsed = z.object({ buyer: z.string() }).strict().safeParse({ buyer: 1, extra: true });
    const got = await answer(parsed.error);
    expect(got.status).toBe(422);
    expect(got.body).toMatchObject({ code: "invalid_fields", fieldErrors: { buyer: expect.any(Array), extra: expect.any(Array) } });
  });

  it("anything else is a 500 that shows no internals", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const got = await answer(new Error("secret detail"));
    expect(got.status).toBe(500);
    expect(JSON.stringify(got.body)).not.toContain("secret");
    log.mockRestore();
  });
});
