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

/** The Postgres backend waiting for a lock (not the holder's, which sits idle in its transaction). */
async function waitingBackend(): Promise<number> {
  let pid: number | undefined;
  await waitFor(async () => {
    const { rows } = await clients.lockPool().query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database() AND pid <> pg_backend_pid()");
    pid = rows[0]?.pid;
    return rows.length === 1;
  }, { timeoutMs: 3000, what: "one backend waiting for the lock" });
  return pid!;
}

const signal = (name: "STOP" | "CONT", pid: number) => execFileSync("kill", [`-${name}`, String(pid)]);
/** A process's state letter from /proc: "T" is stopped. */
const stateOf = (pid: number) => readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[0];

describe.each(["pg-for-update", "pg-advisory-xact"] as const)("%s: the wait ends on the app's clock", (name) => {
  const strategy = STRATEGY_FACTORIES[name](clients);
  // The row lock locks the seeded row; the advisory lock needs none and goes through PgBouncer.
  const resource = name === "pg-for-update" ? SKU : `pg-deadline:${process.pid}`;
  const pool = () => (name === "pg-for-update" ? clients.lockPool() : clients.bouncerPool());

  it("a waiter whose backend is frozen is answered busy at its wait timeout, and its connection comes back once the backend runs", async () => {
    const lockPool = pool();
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
    const frozen = await waitingBackend();
    signal("STOP", frozen);
    // Whatever happens to this test, the backend runs again.
    const thaw = setTimeout(() => signal("CONT", frozen), WAIT_MS * 4);
    expect(stateOf(frozen), "the waiter's backend is stopped").toBe("T");
    let answer: Awaited<typeof waiter>;
    let stillOut: number;
    try {
      answer = await waiter;
      stillOut = lockPool.totalCount - lockPool.idleCount;
    } finally {
      clearTimeout(thaw);
      signal("CONT", frozen);
      letGo();
      await holder;
    }
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
