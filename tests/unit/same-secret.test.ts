import { describe, expect, it } from "vitest";
import { sameSecret } from "@/lib/same-secret";

describe("sameSecret", () => {
  it("is true only for the same secret, and never throws on a different length in bytes", () => {
    const token = "compose-metrics-token-not-secret";
    expect(sameSecret(token, token)).toBe(true);
    expect(sameSecret(`${token}x`, token)).toBe(false);
    expect(sameSecret(token.replace(/.$/, "y"), token)).toBe(false);
    // As many characters as the token, twice as many bytes: timingSafeEqual would throw on it.
    expect(sameSecret("é".repeat(token.length), token)).toBe(false);
    expect(sameSecret("", token)).toBe(false);
    expect(sameSecret(null, token)).toBe(false);
    expect(sameSecret(token, undefined)).toBe(false);
    expect(sameSecret("", "")).toBe(false);
  });
});
