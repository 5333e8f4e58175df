/**
 * The Postgres advisory-lock strategies on a Postgres of this test's own, and PgBouncer in
 * transaction mode in front of it with the stack's own pgbouncer.ini, no stack:
 *   - pg-advisory (session lock, straight to Postgres) and pg-advisory-xact (transaction-scoped,
 *     through PgBouncer): 200 acquirers from two processes at once, one holder at a time; release
 *     on a throw; pg-advisory's lease — Postgres ends the session idle past the TTL, the next
 *     acquirer gets in, the old holder finds its lock lost and holds the older fencing token;
 *   - pg-advisory-pooled (the session lock through PgBouncer): what a user sees — a second buyer
 *     gets the lock while the first holds it; an unlock lent another server connection fails and
 *     leaves the lock behind, held by nobody; and under load, two holders at once and stranded waiters.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type pg from "pg";
import { STRATEGY_FACTORIES } from "@/lib/locks/strategies";
import { LockBusyError, type HeldLock, type LockOptions } from "@/lib/locks/types";
import { sleep } from "../support/wait";
import { serverLockClients, type ServerLockClients } from "./support/lock-clients";
import { machineUnfit, startPgBouncer, startPostgres, stopServers, type TestPgBouncer, type TestPostgres } from "./support/servers";
import { fromTwoInstances } from "./support/two-instances";

const unfit = machineUnfit(["postgres", "pgbouncer"]);
let resources = 0;
const freshResource = () => `servers:${process.pid}:${++resources}`;
const options = (overrides: Partial<LockOptions> = {}): LockOptions => ({ ttlMs: 5000, waitTimeoutMs: 10_000, ...overrides });

/** Runs `body` while `strategy` holds `resource` for another caller; lets that holder go afterwards. */
async function whileHeld<T>(withLock: (critical: (held: HeldLock) => Promise<void>) => Promise<void>, body: () => Promise<T>): Promise<T> {
  let letGo!: () => void;
  const released = new Promise<void>((resolve) => (letGo = resolve));
  let inside!: () => void;
  const entered = new Promise<void>((resolve) => (inside = resolve));
  const holder = withLock(async () => {
    inside();
    await released;
  });
  await Promise.race([entered, holder]);
  try {
    return await body();
  } finally {
    letGo();
    await holder;
  }
}

describe.skipIf(unfit !== null)(`the Postgres advisory locks on a Postgres and a PgBouncer of the test's own${unfit ? ` (skipped: ${unfit})` : ""}`, () => {
  let postgres: TestPostgres;
  let bouncer: TestPgBouncer;
  let direct: pg.Pool;
  let clients: ServerLockClients;

  beforeAll(async () => {
    postgres = await startPostgres();
    bouncer = await startPgBouncer(postgres);
    direct = postgres.pool(5);
    clients = serverLockClients({ lockPool: postgres.pool(20), bouncerPool: bouncer.pool(20) });
  });

  afterAll(async () => {
    await clients?.close();
    await stopServers();
  });

  for (const name of ["pg-advisory", "pg-advisory-xact"] as const) {
    it(`${name}: 200 acquirers from two processes at once, one holder at a time, every one in`, async () => {
      const seen = await fromTwoInstances({ strategy: name, resource: freshResource(), perInstance: 100, workMs: 1, waitTimeoutMs: 60_000, ttlMs: 5000, postgresPort: postgres.port, pgbouncerPort: bouncer.port });
      expect(seen.refused).toEqual([]);
      expect(seen.held).toHaveLength(200);
      expect(seen.peak).toBe(1);
      expect(seen.lost).toBe(0);
    });

    it(`${name}: releases when the critical section throws — the next acquirer gets in long before the TTL`, async () => {
      const strategy = STRATEGY_FACTORIES[name](clients);
      const resource = freshResource();
      await expect(strategy.withLock(resource, options({ ttlMs: 20_000 }), async () => {
        throw new Error("the work failed");
      })).rejects.toThrow("the work failed");
      const startedAt = Date.now();
      await strategy.withLock(resource, options({ ttlMs: 20_000, waitTimeoutMs: 5000 }), async () => {});
      // A lock left to its TTL would keep it out 20 s; a quarter of that is no loaded machine's round trip.
      expect(Date.now() - startedAt).toBeLessThan(20_000 / 4);
      // Nothing is left held on any session.
      const { rows } = await direct.query<{ held: string }>("SELECT count(*) AS held FROM pg_locks WHERE locktype = 'advisory'");
      expect(Number(rows[0]!.held)).toBe(0);
    });
  }

  it("pg-advisory is a lease: Postgres ends the session idle past the TTL, the next buyer gets in with a higher fencing token, and the old holder finds its lock lost", async () => {
    const strategy = STRATEGY_FACTORIES["pg-advisory"](clients);
    const resource = freshResource();
    let lost = 0;
    let first: { token?: number; enteredAt?: number; abortedAt?: number; workEndedAt?: number; leftAtEnd?: number } = {};
    let secondToken: number | undefined;
    let secondInAt = 0;
    const startedAt = Date.now();
    const holder = strategy.withLock(resource, options({ ttlMs: 300, onLockLost: () => lost++ }), async (held) => {
      first = { token: held.fencingToken, enteredAt: Date.now() - startedAt };
      held.signal.addEventListener("abort", () => (first.abortedAt = Date.now() - startedAt));
      await sleep(1500); // works far past its 300 ms lease
      first.workEndedAt = Date.now() - startedAt;
      first.leftAtEnd = held.timeLeftMs?.();
    });
    await sleep(50);
    const next = strategy.withLock(resource, options({ waitTimeoutMs: 5000 }), async (held) => {
      secondInAt = Date.now() - startedAt;
      secondToken = held.fencingToken;
    });
    await Promise.all([holder, next]);
    // The old holder is told its lease is over before anyone else can be in: its signal aborts
    // ahead of Postgres ending the session (the lease counts from before the lock statement's answer).
    expect(first.abortedAt).toBeLessThan(secondInAt);
    // The lease counts from before the lock statement, so it ends at most 300 ms after the holder got
    // in; the rest of the bound is a loaded machine's timer lag. A lease that lasted the work fails.
    expect(first.abortedAt! - first.enteredAt!).toBeLessThan(900);
    expect(first.leftAtEnd).toBeLessThan(0);
    // Postgres freed the lock with the session, while the first holder still worked.
    expect(secondInAt).toBeGreaterThanOrEqual(250);
    expect(secondInAt).toBeLessThan(first.workEndedAt!);
    expect(secondToken).toBeGreaterThan(first.token ?? Infinity);
    expect(lost).toBe(1);
  });

  it("pg-advisory straight to Postgres keeps a second buyer out; pg-advisory-pooled through PgBouncer lets it in beside the first, 20 times in 20", async () => {
    const directLock = STRATEGY_FACTORIES["pg-advisory"](clients);
    const pooled = STRATEGY_FACTORIES["pg-advisory-pooled"](clients);
    let directSecondIn = 0;
    let pooledSecondIn = 0;
    for (let round = 0; round < 20; round++) {
      const resource = freshResource();
      // The direct second buyer waits 300 ms and is turned away; the pooled one may wait 5 s, which a
      // loaded machine's connect never needs and a pooled lock that did exclude would use up.
      const second = (lock: typeof directLock, waitTimeoutMs: number) => lock.withLock(resource, options({ waitTimeoutMs }), async () => "in").catch((error: unknown) => {
        if (!(error instanceof LockBusyError)) throw error;
        return "busy";
      });
      if ((await whileHeld((critical) => directLock.withLock(resource, options(), critical), () => second(directLock, 300))) === "in") directSecondIn++;
      if ((await whileHeld((critical) => pooled.withLock(resource, options(), critical), () => second(pooled, 5000))) === "in") pooledSecondIn++;
    }
    expect(directSecondIn).toBe(0);
    expect(pooledSecondIn).toBe(20);
  });

  it("pg-advisory-pooled: an unlock PgBouncer lends another server connection answers false and leaves the lock behind, held by nobody", async () => {
    const pool = bouncer.pool(3);
    const pooled = STRATEGY_FACTORIES["pg-advisory-pooled"](serverLockClients({ bouncerPool: pool }));
    const resource = freshResource();
    let lost = 0;
    const heldNow = async () => Number((await direct.query<{ n: string }>("SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND granted")).rows[0]!.n);
    const before = await heldNow();
    let other: pg.PoolClient | undefined;
    await pooled.withLock(resource, options({ onLockLost: () => lost++ }), async () => {
      // Another client's open transaction takes the server connection the lock was taken on
      // (PgBouncer lends the most recently used one first), so the unlock is lent another.
      other = await pool.connect();
      await other.query("BEGIN");
      await other.query("SELECT 1");
    });
    await other!.query("COMMIT");
    other!.release();
    expect(lost).toBe(1);
    expect(await heldNow()).toBe(before + 1);
    // A session straight to Postgres cannot take it: the lock belongs to a pooled server connection no client holds.
    const { rows } = await direct.query<{ locked: boolean }>("SELECT pg_try_advisory_lock(0, hashtext($1)) AS locked", [resource]);
    expect(rows[0]!.locked).toBe(false);
    await pool.end();
  });

  it("pg-advisory-pooled under load from two processes: two holders at once, and waiters stranded behind a lock nobody holds", async () => {
    const seen = await fromTwoInstances({ strategy: "pg-advisory-pooled", resource: freshResource(), perInstance: 100, workMs: 1, waitTimeoutMs: 3000, ttlMs: 5000, pgbouncerPort: bouncer.port });
    expect(seen.peak).toBeGreaterThan(1);
    expect(seen.lost).toBeGreaterThan(0);
    expect(seen.refused.every((name) => name === "LockBusyError")).toBe(true);
  });
});
