/**
 * The Postgres transaction locks' one message (lib/locks/row-lock.ts `takeAndLease`): BEGIN, the
 * wait's bound (unless the buyer never waits), the lock, then the lease, in that order, with the
 * resource's name as one SQL literal whatever it holds, and whole numbers of at least 1 ms (a TTL
 * that is not one is refused: the lease the holder counts must be the one Postgres counts).
 */
import { describe, expect, it } from "vitest";
import { takeAndLease } from "@/lib/locks/row-lock";

const statements = (message: string) => message.split("; ");

describe("takeAndLease", () => {
  it("waits: BEGIN, the wait's bound, FOR UPDATE, then the lease and the token", () => {
    expect(statements(takeAndLease("row", "goods:001", false, 4999.7, 2000))).toEqual([
      "BEGIN",
      "SET LOCAL lock_timeout = 4999",
      "SELECT name FROM lock_rows WHERE name = 'goods:001' FOR UPDATE",
      "SELECT set_config('idle_in_transaction_session_timeout', '2000', true), nextval('lock_fence_seq')::text AS token",
    ]);
  });

  it("never waits: no lock_timeout (0 would wait forever), NOWAIT or the try-lock", () => {
    const row = statements(takeAndLease("row", "goods:001", true, 5000, 2000));
    expect(row).toHaveLength(3);
    expect(row[1]).toBe("SELECT name FROM lock_rows WHERE name = 'goods:001' FOR UPDATE NOWAIT");
    const advisory = statements(takeAndLease("advisory", "goods:001", true, 5000, 2000));
    expect(advisory[1]).toBe("SELECT pg_try_advisory_xact_lock(hashtextextended('goods:001', 0)) AS locked");
    expect(statements(takeAndLease("advisory", "goods:001", false, 5000, 2000))[2]).toBe("SELECT pg_advisory_xact_lock(hashtextextended('goods:001', 0))");
  });

  it("quotes a name with quotes, backslashes and semicolons as one literal", () => {
    const message = takeAndLease("row", "a\\b'; DROP TABLE orders; --", false, 1000, 1000);
    expect(message).toContain("WHERE name =  E'a\\\\b''; DROP TABLE orders; --' FOR UPDATE");
  });

  it("bounds the wait to a whole number of ms, at least 1, and refuses a TTL that is not one", () => {
    for (const bad of [0, -5, 0.4, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(takeAndLease("row", "goods:001", false, bad, 2000)).toContain("SET LOCAL lock_timeout = 1;");
      expect(() => takeAndLease("row", "goods:001", false, 1000, bad)).toThrow(RangeError);
    }
  });
});
