/**
 * The Postgres transaction locks send BEGIN, the wait's bound, the lock and the lease in one
 * message, so the lease's statement runs only once the lock is granted, and count the lease from
 * that send; a buyer who waited for the lock starts its lease again once it holds it. Here, on the
 * real Postgres, a buyer waits a second for a lock whose TTL is 400 ms. It must then hold a whole
 * lease (counted from the send alone it would be over before it began); the lock must still be its
 * own whenever its time left says so, up to the lease's last milliseconds (a lease counted too late
 * would outlive Postgres' countdown); and Postgres must end an idle holder once its TTL has passed
 * (the countdown is real). A buyer who did not wait holds its lease from the send, to its end. A
 * buyer whose process reads its grant only after Postgres ended the session has lost the lock.
 */
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { advisoryKey } from "@/lib/locks/keys";
import { STRATEGY_FACTORIES } from "@/lib/locks/strategies";
import { LockLostError, type HeldLock } from "@/lib/locks/types";
import { openLockClients } from "../support/lock-clients";
import { sleep, waitFor } from "../support/wait";

const clients = openLockClients();
// A lock of this test's own (a row of lock_rows for pg-for-update; the advisory lock needs none):
// nothing else of the stack takes it, and its name in a backend's query is this test's.
const RESOURCE = `pg-lease:${process.pid}`;
beforeAll(async () => {
  await clients.lockPool().query("INSERT INTO lock_rows (name) VALUES ($1) ON CONFLICT DO NOTHING", [RESOURCE]);
});
afterAll(async () => {
  await clients.lockPool().query("DELETE FROM lock_rows WHERE name = $1", [RESOURCE]);
  await clients.close();
});

const TTL_MS = 400;
const HOLD_MS = 1000;

describe.each(["pg-for-update", "pg-advisory-xact"] as const)("%s: a lease that starts when the lock is granted", (name) => {
  const strategy = STRATEGY_FACTORIES[name](clients);
  // The advisory lock goes through PgBouncer.
  const resource = RESOURCE;
  /** Whether another session can take the lock this moment (without waiting), asked on `client` or a pooled connection. */
  const free = async (client?: pg.PoolClient): Promise<boolean> => {
    if (name === "pg-advisory-xact") {
      const { rows } = await (client ?? clients.bouncerPool()).query<{ locked: boolean }>(`SELECT pg_try_advisory_xact_lock(${advisoryKey("$1")}) AS locked`, [resource]);
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

  /** Client backends waiting for a lock in a message that names this test's lock. */
  const waitingForTheLock = async (): Promise<number> => {
    const { rows } = await clients.lockPool().query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND backend_type = 'client backend'
         AND datname = current_database() AND position($1 in query) > 0`,
      [`'${RESOURCE}'`]);
    return rows[0]!.n;
  };

  /** Another session's connection: each look at the lock is one round trip on it. */
  const openLooker = () => (name === "pg-advisory-xact" ? clients.bouncerPool() : clients.lockPool()).connect();

  /**
   * From the lease's last 150 ms to its end, looks at the lock back to back: a look counts when
   * the lease still said "ours" after its answer, and then the lock must not have been free.
   */
  async function looksToTheEnd(lock: HeldLock, looker: pg.PoolClient): Promise<Array<{ leftAfter: number; free: boolean }>> {
    await waitFor(() => lock.timeLeftMs!(), { until: (left) => left <= 150, timeoutMs: TTL_MS + 200, intervalMs: 5, what: "the lease's last 150 ms" });
    const looks: Array<{ leftAfter: number; free: boolean }> = [];
    while (lock.timeLeftMs!() > 0 && looks.length < 50_000) {
      const isFree = await free(looker);
      looks.push({ leftAfter: lock.timeLeftMs!(), free: isFree });
    }
    return looks;
  }

  function expectOursThroughTheEnd(looks: Array<{ leftAfter: number; free: boolean }>): void {
    const withinLease = looks.filter((look) => look.leftAfter > 0);
    expect(withinLease.length, "looks at the lock answered within the lease's last 150 ms").toBeGreaterThan(0);
    expect(Math.min(...withinLease.map((look) => look.leftAfter)), "ms of lease left at the last look answered within it").toBeLessThan(20);
    expect(withinLease.filter((look) => look.free), "looks that found the lock free while the lease said it was ours").toEqual([]);
  }

  it("a buyer who waited longer than its TTL holds a whole lease, the lock its own to the lease's end", async () => {
    expect(await free(), "the lock is free before the test").toBe(true);
    const looker = await openLooker();
    try {
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
        return { waitedMs, leftAtEntry, looks: await looksToTheEnd(lock, looker) };
      });
      await first;
      expect(seen.waitedMs, "the second buyer waited for the first").toBeGreaterThanOrEqual(HOLD_MS - 100);
      // Counted from the send alone, the lease would have ended ~600 ms before the buyer entered.
      expect(seen.leftAtEntry, "ms of lease left on entering").toBeGreaterThan(TTL_MS / 2);
      expect(seen.leftAtEntry).toBeLessThanOrEqual(TTL_MS);
      expectOursThroughTheEnd(seen.looks);
    } finally {
      looker.release();
    }
  });

  it("a buyer who did not wait holds its lease from the send, the lock its own to the lease's end, and Postgres ends it once idle past its TTL", async () => {
    await waitFor(() => free(), { until: (isFree) => isFree, timeoutMs: 2000, what: "the lock free before the test" });
    const looker = await openLooker();
    try {
      const seen = await strategy.withLock(resource, { ttlMs: TTL_MS, waitTimeoutMs: 3000 }, async (lock: HeldLock) => {
        const leftAtEntry = lock.timeLeftMs!();
        const looks = await looksToTheEnd(lock, looker);
        const endedAt = performance.now();
        // Work that outlives the lease, sending nothing to Postgres: its countdown must end the session.
        await waitFor(() => free(looker), { until: (isFree) => isFree, timeoutMs: TTL_MS * 3, what: "Postgres ending the idle holder's session" });
        return { leftAtEntry, looks, freeAfterLeaseMs: performance.now() - endedAt };
      });
      expect(seen.leftAtEntry, "ms of lease left on entering, no wait").toBeGreaterThan(TTL_MS * 0.8);
      expectOursThroughTheEnd(seen.looks);
      expect(seen.freeAfterLeaseMs, "ms from the lease's end until Postgres let the lock go").toBeLessThan(TTL_MS);
    } finally {
      looker.release();
    }
  });

  it("a holder whose grant it read only after Postgres had ended its session has lost the lock: lock_lost, nothing run, the connection not reused", async () => {
    await waitFor(() => free(), { until: (isFree) => isFree, timeoutMs: 2000, what: "the lock free before the test" });
    let held = () => {};
    const holding = new Promise<void>((resolve) => (held = resolve));
    let letGo = () => {};
    const released = new Promise<void>((resolve) => (letGo = resolve));
    const first = strategy.withLock(resource, { ttlMs: 10_000, waitTimeoutMs: 3000 }, async () => {
      held();
      await released; // once the second buyer waits in Postgres
      // Once this holder's COMMIT is written (by the promise callbacks that run when this returns,
      // before any next tick), this process stops reading for three TTLs: Postgres grants the
      // waiter, answers it, and ends its session idle past the TTL before the waiter reads its
      // answer. (A timer would come too late: the grant's answer can be read first.)
      process.nextTick(() => {
        const until = performance.now() + TTL_MS * 3;
        while (performance.now() < until) {
          // a process that does not get the CPU: a GC pause, a stop of the world
        }
      });
    });
    await holding;
    let ran = false;
    const second = strategy.withLock(resource, { ttlMs: TTL_MS, waitTimeoutMs: 3000 }, async () => {
      ran = true;
    }).then(() => undefined, (error: unknown) => error);
    // The fault needs the second buyer's message inside Postgres, waiting for the lock, before the
    // first lets go: its grant is then answered while this process does not read.
    await waitFor(() => waitingForTheLock(), { until: (n) => n === 1, timeoutMs: 3000, what: "the second buyer waiting in Postgres for the lock" });
    letGo();
    await first;
    const error = await second;
    expect(error, "the second buyer's answer").toBeInstanceOf(LockLostError);
    expect((error as LockLostError).code).toBe("lock_lost");
    expect(ran, "the work ran without the lock").toBe(false);
    const pool = name === "pg-advisory-xact" ? clients.bouncerPool() : clients.lockPool();
    await waitFor(() => pool.totalCount === pool.idleCount, { timeoutMs: 2000, what: "every lock connection back in the pool" });
    expect(await free(), "the lock is free").toBe(true);
  });
});
