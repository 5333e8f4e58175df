/**
 * The Postgres transaction locks send BEGIN, the wait's bound, the lock and the lease in one
 * message, so the lease's statement runs only once the lock is granted, and count the lease from
 * that send; a buyer who waited for the lock starts its lease again once it holds it. Here, on the
 * real Postgres, a buyer waits a second for a lock whose TTL is 400 ms. It must then hold a whole
 * lease (counted from the send alone it would be over before it began); the lock must still be its
 * own whenever its time left says so, up to the lease's last milliseconds (a lease counted too late
 * would outlive Postgres' countdown); and Postgres must end an idle holder once its TTL has passed
 * (the countdown is real).
 */
import type pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { STRATEGY_FACTORIES } from "@/lib/locks/strategies";
import type { HeldLock } from "@/lib/locks/types";
import { SKU } from "@/lib/sale/keys";
import { openLockClients } from "../support/lock-clients";
import { sleep, waitFor } from "../support/wait";

const clients = openLockClients();
afterAll(() => clients.close());

const TTL_MS = 400;
const HOLD_MS = 1000;

describe.each(["pg-for-update", "pg-advisory-xact"] as const)("%s: a lease that starts when the lock is granted", (name) => {
  const strategy = STRATEGY_FACTORIES[name](clients);
  // The row lock locks the seeded row; the advisory lock needs none and goes through PgBouncer.
  const resource = name === "pg-for-update" ? SKU : `pg-lease:${process.pid}`;
  /** Whether another session can take the lock this moment (without waiting), asked on `client` or a pooled connection. */
  const free = async (client?: pg.PoolClient): Promise<boolean> => {
    if (name === "pg-advisory-xact") {
      const { rows } = await (client ?? clients.bouncerPool()).query<{ locked: boolean }>("SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS locked", [resource]);
      return rows[0]!.locked;
    }
    try {
      await (client ?? clients.lockPool()).query("SELECT name FROM lock_rows WHERE name = $1 FOR UPDATE NOWAIT", [resource]);
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === "55P03") return false;
      throw error;
    }
  };

  it("a buyer who waited longer than its TTL holds a whole lease, true to Postgres' own countdown", async () => {
    expect(await free(), "the lock is free before the test").toBe(true);
    let held = () => {};
    const holding = new Promise<void>((resolve) => (held = resolve));
    // The first holder's TTL is long: its own lease must not end while the second waits.
    const first = strategy.withLock(resource, { ttlMs: 10_000, waitTimeoutMs: 3000 }, async () => {
      held();
      await sleep(HOLD_MS); // the second buyer's wait, longer than its TTL
    });
    await holding;
    // Another session's connection, opened now: its looks at the lock are one round trip each.
    const looker = await (name === "pg-advisory-xact" ? clients.bouncerPool() : clients.lockPool()).connect();
    const sentAt = Date.now();
    let seen: { waitedMs: number; leftAtEntry: number; looks: Array<{ leftAfter: number; free: boolean }> };
    try {
      seen = await strategy.withLock(resource, { ttlMs: TTL_MS, waitTimeoutMs: 3000 }, async (lock: HeldLock) => {
        const waitedMs = Date.now() - sentAt;
        const leftAtEntry = lock.timeLeftMs!();
        // Through the lease's last milliseconds, look at the lock back to back: whenever a look was
        // answered while the lease still said "ours", the lock must have been ours.
        await waitFor(() => lock.timeLeftMs!(), { until: (left) => left <= 60, timeoutMs: TTL_MS + 200, intervalMs: 5, what: "the lease almost over" });
        const looks: Array<{ leftAfter: number; free: boolean }> = [];
        while (lock.timeLeftMs!() > 0 && looks.length < 200) {
          const isFree = await free(looker);
          looks.push({ leftAfter: lock.timeLeftMs!(), free: isFree });
        }
        return { waitedMs, leftAtEntry, looks };
      });
    } finally {
      looker.release();
    }
    await first;
    expect(seen.waitedMs, "the second buyer waited for the first").toBeGreaterThanOrEqual(HOLD_MS - 50);
    // Counted from the send alone, the lease would have ended ~600 ms before the buyer entered.
    expect(seen.leftAtEntry, "ms of lease left on entering").toBeGreaterThan(TTL_MS / 2);
    expect(seen.leftAtEntry).toBeLessThanOrEqual(TTL_MS);
    const withinLease = seen.looks.filter((look) => look.leftAfter > 0);
    expect(withinLease.length, "looks at the lock answered within the lease's last 60 ms").toBeGreaterThan(0);
    expect(withinLease.filter((look) => look.free), "looks that found the lock free while the lease said it was ours").toEqual([]);
    // The second holder left when its work ended (committed), so the lock is free again; and the
    // countdown is Postgres' own: a holder idle past its TTL loses the lock without committing.
    await waitFor(() => free(), { until: (isFree) => isFree, timeoutMs: 2000, what: "the lock free after the second holder" });
    let idleHeld = () => {};
    const idleHolding = new Promise<void>((resolve) => (idleHeld = resolve));
    let idleLockedAt = 0;
    const idle = strategy.withLock(resource, { ttlMs: TTL_MS, waitTimeoutMs: 3000 }, async () => {
      idleLockedAt = Date.now();
      idleHeld();
      await sleep(TTL_MS * 4); // work that outlives the lease, sending nothing to Postgres
    });
    await idleHolding;
    expect(await free(), "taken while its lease runs").toBe(false);
    await waitFor(() => free(), { until: (isFree) => isFree, timeoutMs: TTL_MS * 3, what: "Postgres ending the idle holder's session after its TTL" });
    expect(Date.now() - idleLockedAt, "ms until Postgres let the lock go").toBeLessThan(TTL_MS * 3);
    await idle;
  });
});
