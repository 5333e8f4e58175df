/**
 * The Postgres transaction locks end a buyer's wait on the app's own clock. Postgres' lock_timeout
 * bounds the wait on the server, but a loaded server gets round to it late (a thousand buyers over
 * HTTP: answers up to a second past the wait timeout, and the ROLLBACK after it waited on too). Here
 * the waiter's own backend is frozen (SIGSTOP, on the real Postgres) while it waits for the row, so
 * its lock_timeout cannot fire at all: the waiter must still be answered busy at its deadline, and
 * once the backend runs again its transaction is rolled back and its connection handed back.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { STRATEGY_FACTORIES } from "@/lib/locks/strategies";
import { LockBusyError, type LockOptions } from "@/lib/locks/types";
import { SKU } from "@/lib/sale/keys";
import { openLockClients } from "../support/lock-clients";
import { waitFor } from "../support/wait";

const clients = openLockClients();
afterAll(() => clients.close());

const WAIT_MS = 1500;
const options: LockOptions = { ttlMs: 10_000, waitTimeoutMs: WAIT_MS };

/**
 * Client backends of this database waiting for a lock in `statement` (the lock's own SQL): never
 * another session's wait (an order insert the stack still has out, an autovacuum worker).
 */
async function backendsWaitingIn(statement: string): Promise<number[]> {
  const { rows } = await clients.lockPool().query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND backend_type = 'client backend'
       AND datname = current_database() AND pid <> pg_backend_pid() AND position($1 in query) > 0`, [statement]);
  return rows.map((row) => row.pid);
}

const signal = (name: "STOP" | "CONT", pid: number) => execFileSync("kill", [`-${name}`, String(pid)]);
/** SIGCONT that never throws: the backend may already be gone (the failure is then the assertions' to say). */
const thawQuietly = (pid: number) => {
  try {
    signal("CONT", pid);
  } catch {
    // ESRCH: nothing left to thaw.
  }
};
/** A process's state letter from /proc: "T" is stopped. */
const stateOf = (pid: number) => readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[0];

describe.each(["pg-for-update", "pg-advisory-xact"] as const)("%s: the wait ends on the app's clock", (name) => {
  const strategy = STRATEGY_FACTORIES[name](clients);
  // The row lock locks the seeded row; the advisory lock needs none and goes through PgBouncer.
  const resource = name === "pg-for-update" ? SKU : `pg-deadline:${process.pid}`;
  const pool = () => (name === "pg-for-update" ? clients.lockPool() : clients.bouncerPool());

  // The statement the waiter's backend waits in.
  const statement = name === "pg-for-update" ? "FROM lock_rows WHERE name = " : "pg_advisory_xact_lock(";

  it("a waiter whose backend is frozen is answered busy at its wait timeout, and its connection comes back once the backend runs", async () => {
    const lockPool = pool();
    // Nothing of an earlier test still waits in this lock's statement: the one that waits next is ours.
    await waitFor(() => backendsWaitingIn(statement), { until: (pids) => pids.length === 0, timeoutMs: 10_000, what: `no backend waiting in ${statement}` });
    let letGo = () => {};
    let held = () => {};
    const holding = new Promise<void>((resolve) => (held = resolve));
    const holder = strategy.withLock(resource, options, () => {
      held();
      return new Promise<void>((resolve) => (letGo = resolve));
    });
    await holding;
    const startedAt = Date.now();
    const waiter = strategy.withLock(resource, options, async () => "got it").then(
      () => ({ ms: Date.now() - startedAt, error: undefined as unknown }),
      (error: unknown) => ({ ms: Date.now() - startedAt, error }));
    let frozen: number | undefined;
    let thaw: NodeJS.Timeout | undefined;
    let answer: Awaited<typeof waiter>;
    let stillOut: number;
    let stoppedAfterMs: number;
    try {
      const [pid] = await waitFor(() => backendsWaitingIn(statement), { until: (pids) => pids.length === 1, timeoutMs: 3000, what: "our waiter's backend waiting for the lock" });
      frozen = pid!;
      signal("STOP", frozen);
      // Whatever happens to this test, the backend runs again.
      thaw = setTimeout(() => thawQuietly(frozen!), WAIT_MS * 4);
      // A sleeping process stops once it is next scheduled: on a busy machine, a moment after the signal.
      await waitFor(() => stateOf(frozen!), { until: (state) => state === "T", timeoutMs: WAIT_MS / 2, intervalMs: 5, what: "the waiter's backend stopped" });
      stoppedAfterMs = Date.now() - startedAt;
      answer = await waiter;
      stillOut = lockPool.totalCount - lockPool.idleCount;
    } finally {
      clearTimeout(thaw);
      if (frozen !== undefined) thawQuietly(frozen);
      letGo();
      await holder;
      await waiter;
    }
    // The fault was in force before the waiter's deadline: only the app's clock could answer it.
    expect(stoppedAfterMs, "ms from the waiter's start until its backend was stopped").toBeLessThan(WAIT_MS);
    expect(answer.error).toBeInstanceOf(LockBusyError);
    expect(answer.ms).toBeGreaterThanOrEqual(WAIT_MS - 50);
    // Before: the buyer waited for as long as the backend stayed frozen.
    expect(answer.ms).toBeLessThan(WAIT_MS + 700);
    // Answered while its statement was still out: that connection was not lent again.
    expect(stillOut, "connections out when the waiter was answered: the holder's and the frozen waiter's").toBe(2);
    // Running again, the backend's lock_timeout (or the lock, granted late) ends its statement;
    // the transaction is rolled back and the connection comes back to the pool.
    await waitFor(() => lockPool.totalCount === lockPool.idleCount, { timeoutMs: 5000, what: "every lock connection back in the pool" });
    const { rows } = await clients.lockPool().query<{ n: string }>(
      "SELECT count(*)::text AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'");
    expect(rows[0]!.n, "no transaction left open").toBe("0");
    // The lock is free: the next buyer gets it at once.
    await expect(strategy.withLock(resource, { ...options, waitTimeoutMs: 1000 }, async () => "next")).resolves.toBe("next");
  });
});
