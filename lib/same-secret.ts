import { timingSafeEqual } from "node:crypto";

/**
 * Whether a credential someone sent is the expected one, in time that does not depend on where
 * they differ. Compared as bytes: timingSafeEqual throws on buffers of two lengths, and a string
 * of as many characters as the secret can be longer in bytes (non-ASCII), so a check of string
 * lengths first answered such a header with a 500.
 */
export function sameSecret(given: string | null | undefined, expected: string | null | undefined): boolean {
  if (!given || !expected) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
