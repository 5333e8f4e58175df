import { describe, expect, it } from "vitest";
import { buyCreateSchema } from "@/lib/validations/buy";
import { lockConfigUpdateSchema } from "@/lib/validations/config";

describe("buyCreateSchema", () => {
  it("accepts a buyer and an optional sku", () => {
    expect(buyCreateSchema.parse({ buyer: "alice" })).toEqual({ buyer: "alice" });
    expect(buyCreateSchema.parse({ buyer: " bob ", sku: "goods:001" })).toEqual({ buyer: "bob", sku: "goods:001" });
  });

  it.each([{}, { buyer: 1 }, { buyer: "" }, { buyer: "a", extra: true }, { buyer: "a b" }])("refuses %j", (input) => {
    expect(buyCreateSchema.safeParse(input).success).toBe(false);
  });
});

describe("lockConfigUpdateSchema", () => {
  it("accepts any subset of the knobs", () => {
    expect(lockConfigUpdateSchema.parse({ strategy: "redlock" })).toEqual({ strategy: "redlock" });
    expect(lockConfigUpdateSchema.parse({ lockTtlMs: 100, workMs: 0 })).toEqual({ lockTtlMs: 100, workMs: 0 });
  });

  it.each([{ strategy: "chubby" }, { lockTtlMs: 0 }, { workMs: -1 }, { waitTimeoutMs: 1.5 }, { color: "red" }])(
    "refuses %j",
    (input) => {
      expect(lockConfigUpdateSchema.safeParse(input).success).toBe(false);
    },
  );
});
