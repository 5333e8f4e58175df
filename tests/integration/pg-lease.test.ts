/**
 * The Postgres transaction locks send BEGIN, the wait's bound, the lock and the lease in one
 * message, so the lease's statement runs only once the lock is granted: the holder's lease counts
 * from the send plus the wait Postgres reports, not from the send alone. Here, on the real
 * Postgres, a buyer waits a second for a lock whose TTL is 400 ms. It must then hold a whole lease
 * (a lease counted from the send would be over before it began); the lock must still be its own
 * while its time left says so (a lease counted too late would outlive Postgres' countdown); and
 * Postgres must end it once the TTL has passed idle (the countdown is real).
 */
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
  /** Whether another session can take the lock this moment (without waiting). */
  const free = async (): Promise<boolean> => {
    if (name === "pg-advisory-xact") {
      const { rows } = await clients.bouncerPool().query<{ locked: boolean }>("SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS locked", [resource]);
      return rows[0]!.locked;
    }
    try {
      await clients.lockPool().query("SELECT name FROM lock_rows WHERE name = $1 FOR UPDATE NOWAIT", [resource]);
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
    const sentAt = Date.now();
    const seen = await strategy.withLock(resource, { ttlMs: TTL_MS, waitTimeoutMs: 3000 }, async (lock: HeldLock) => {
      const waitedMs = Date.now() - sentAt;
      const leftAtEntry = lock.timeLeftMs!();
      // Just before the lease says it is over, the lock must still be ours.
      await waitFor(() => lock.timeLeftMs!(), { until: (left) => left <= 40, timeoutMs: TTL_MS + 200, intervalMs: 5, what: "the lease almost over" });
      const freeNearTheEnd = await free();
      const leftAfterLook = lock.timeLeftMs!();
      return { waitedMs, leftAtEntry, freeNearTheEnd, leftAfterLook };
    });
    await first;
    expect(seen.waitedMs, "the second buyer waited for the first").toBeGreaterThanOrEqual(HOLD_MS - 50);
    // Counted from the send, the lease would have ended ~600 ms before the buyer entered.
    expect(seen.leftAtEntry, "ms of lease left on entering").toBeGreaterThan(TTL_MS / 2);
    expect(seen.leftAtEntry).toBeLessThanOrEqual(TTL_MS);
    // The look itself took time: it counts only if the lease still said "ours" when it was answered.
    expect(seen.leftAfterLook, "the look at the lock ended within the lease").toBeGreaterThan(0);
    expect(seen.freeNearTheEnd, "another session could take the lock while the lease said it was ours").toBe(false);
    // The second holder left when its work ended (committed), so the lock is free again; and the
    // countdown is Postgres' own: a holder idle past its TTL loses the lock without committing.
    await waitFor(free, { until: (isFree) => isFree, timeoutMs: 2000, what: "the lock free after the second holder" });
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
    await waitFor(free, { until: (isFree) => isFree, timeoutMs: TTL_MS * 3, what: "Postgres ending the idle holder's session after its TTL" });
    expect(Date.now() - idleLockedAt, "ms until Postgres let the lock go").toBeLessThan(TTL_MS * 3);
    await idle;
  });
});
