import { describe, expect, it } from "vitest";
import { LockBusyError, LockLostError, LockUnavailableError } from "../../lib/locks/types";
import { outcomeOf } from "../../lib/metrics";
import { StoreUnavailableError } from "../../lib/errors";
import { SoldOutError } from "../../lib/purchase/errors";
import { OnePerBuyerError } from "../../lib/sale/rules/one-per-buyer";
import { SaleSwitchingError } from "../../lib/purchase/take-unit";
import { DropClosedError, DropNotOpenError } from "../../lib/sale/rules/drop";
import { RateLimitedError } from "../../lib/sale/rules/buyer-limit";

describe("the outcome a purchase's error is counted as", () => {
  it("counts a sale rule's no as refused, not as an error", () => {
    expect(outcomeOf(new DropNotOpenError(Date.now() + 5000, Date.now()))).toBe("refused");
    expect(outcomeOf(new DropClosedError())).toBe("refused");
    expect(outcomeOf(new RateLimitedError(5, 1000, 400))).toBe("refused");
    expect(outcomeOf(new OnePerBuyerError("ada"))).toBe("refused");
  });

  it("counts the lock's and the store's answers by their codes", () => {
    expect(outcomeOf(new SoldOutError("goods:001"))).toBe("sold_out");
    expect(outcomeOf(new LockBusyError("goods:001", 5000))).toBe("busy");
    expect(outcomeOf(new SaleSwitchingError("goods:001"))).toBe("busy");
    expect(outcomeOf(new LockLostError("goods:001"))).toBe("lock_lost");
    expect(outcomeOf(new LockUnavailableError("node 1 down"))).toBe("unavailable");
    expect(outcomeOf(new StoreUnavailableError("Postgres down"))).toBe("unavailable");
  });

  it("counts anything else as an error, whatever code it claims", () => {
    expect(outcomeOf(new Error("boom"))).toBe("error");
    expect(outcomeOf(Object.assign(new Error("claims"), { code: "refused" }))).toBe("error");
    expect(outcomeOf(undefined)).toBe("error");
    expect(outcomeOf("busy")).toBe("error");
  });
});
