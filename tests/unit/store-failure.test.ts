import { describe, expect, it } from "vitest";
import { errorResponse } from "@/lib/http/errors";
import { OrderQueueTimeoutError, isOrderStoreFailure } from "@/lib/purchase/order-store";
import { isConnectionError } from "@/lib/store-call";

/** The errors pg and pg-pool raise, as they raise them (message, and SQLSTATE where Postgres answered). */
const pgError = (message: string, code?: string) => Object.assign(new Error(message), code ? { code } : {});
const statementTimeout = pgError("canceling statement due to statement timeout", "57014");
const noAnswer = pgError("Query read timeout");
const connectTimedOut = pgError("Connection terminated due to connection timeout");
const poolFull = pgError("timeout exceeded when trying to connect");
const cancelledByHand = pgError("canceling statement due to user request", "57014");

describe("the main pool's bounds, as failures", () => {
  it("a statement Postgres cancelled at its timeout and a query with no answer at all are the server failing", () => {
    expect(isConnectionError(statementTimeout)).toBe(true);
    expect(isConnectionError(noAnswer)).toBe(true);
    expect(isConnectionError(connectTimedOut)).toBe(true);
    // An operator's pg_cancel_backend is no timeout of ours.
    expect(isConnectionError(cancelledByHand)).toBe(false);
  });

  it("trip the order store's breaker; a full pool (load on a healthy Postgres) does not", () => {
    for (const error of [statementTimeout, noAnswer, connectTimedOut, new OrderQueueTimeoutError("waited 10000 ms")]) {
      expect(isOrderStoreFailure(error), error.message).toBe(true);
    }
    expect(isOrderStoreFailure(poolFull)).toBe(false);
    expect(isOrderStoreFailure(pgError("insert or update on table \"orders\" violates foreign key constraint", "23503"))).toBe(false);
  });

  it("answer 503 unavailable where a path let one through bare, never a 500", async () => {
    for (const error of [statementTimeout, noAnswer]) {
      const response = errorResponse(error);
      expect(response.status, error.message).toBe(503);
      expect(((await response.json()) as { code: string }).code).toBe("unavailable");
    }
  });
});
