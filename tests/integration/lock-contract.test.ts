/**
 * The lock contract in node-redlock's shape: one `runLockContract` registered once per strategy,
 * each strategy built by its factory on this test's own clients and run in this process against
 * the real Redis nodes and Postgres (no app, no nginx). What every
 * strategy promises its caller: mutual exclusion among concurrent acquirers (or, for the unsafe
 * ones, the failure they exist to show), busy at the wait timeout, release when the critical
 * section throws, unavailable when its servers are down, the signal aborting when a lease runs
 * out, FIFO order for the strategies whose waiters line up. The end-to-end contract through
 * nginx stays in contract.test.ts.
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { STRATEGY_FACTORIES, STRATEGY_NAMES, type StrategyName } from "@/lib/locks/strategies";
import { LockBusyError, LockUnavailableError, type LockOptions } from "@/lib/locks/types";
import { resetConfig } from "@/lib/sale/config";
import { SKU } from "@/lib/sale/keys";
import { openLockClients } from "../support/lock-clients";
import { stackControl } from "../support/stack";

interface Topology {
  /** The stack-control calls that take away what the strategy needs (to see "unavailable"). */
  readonly stop?: readonly string[];
}

interface Claims {
  /** Two holders never overlap (false: the unsafe strategy shows overlap under contention). */
  readonly exclusive: boolean;
  /** A waiter gives up as busy at its wait timeout. */
  readonly waits: boolean;
  /** `signal` aborts when the lease runs out. */
  readonly lease: boolean;
  /** The holder can ask its lease's time left (every lease but the naive setnx, which skips the check on purpose). */
  readonly checked?: boolean;
  /** Waiters of this process get the lock in arrival order (the local line's promise). */
  readonly fifo: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let nextResource = 0;
/** Each test its own resource, so no lock of an earlier test is in the way. */
const freshResource = () => `contract:${process.pid}:${++nextResource}`;

afterEach(async () => {
  await stackControl("/reset-faults");
});
const clients = openLockClients();
afterAll(async () => {
  await clients.close();
  await resetConfig();
});

function runLockContract(name: StrategyName, claims: Claims, topology: Topology) {
  const strategy = STRATEGY_FACTORIES[name](clients);
  // The row lock locks a row of lock_rows: the seeded one.
  const resourceFor = () => (name.startsWith("pg-") ? SKU : freshResource());
  const options = (overrides: Partial<LockOptions> = {}): LockOptions => ({ ttlMs: 5000, waitTimeoutMs: 10_000, ...overrides });

  describe(`${name} (in-process contract)`, () => {
    it(claims.exclusive ? "200 concurrent acquirers: one holder at a time" : "200 concurrent acquirers: holders overlap, as this strategy shows", async () => {
      const resource = resourceFor();
      let inside = 0;
      let peak = 0;
      let entered = 0;
      const answers = await Promise.allSettled(Array.from({ length: 200 }, () =>
        strategy.withLock(resource, options({ waitTimeoutMs: 60_000 }), async () => {
          entered++;
          inside++;
          peak = Math.max(peak, inside);
          await sleep(1);
          inside--;
        })));
      const refused = answers.flatMap((answer) => (answer.status === "rejected" ? [answer.reason as unknown] : []));
      // A lock that does not wait (NOWAIT) answers busy instead of queueing; nothing else may fail.
      if (claims.waits || !claims.exclusive) expect(refused).toEqual([]);
      else expect(refused.every((reason) => reason instanceof LockBusyError)).toBe(true);
      expect(entered).toBeGreaterThan(0);
      if (claims.exclusive) expect(peak).toBe(1);
      else expect(peak).toBeGreaterThan(1);
    });

    it.runIf(claims.waits)("a waiter is answered busy at its wait timeout while another holds the lock", async () => {
      const resource = resourceFor();
      let holding!: () => void;
      const held = new Promise<void>((resolve) => (holding = resolve));
      const holder = strategy.withLock(resource, options(), async () => {
        holding();
        await sleep(1500);
      });
      await held;
      const startedAt = Date.now();
      await expect(strategy.withLock(resource, options({ waitTimeoutMs: 300 }), async () => {})).rejects.toBeInstanceOf(LockBusyError);
      const waited = Date.now() - startedAt;
      expect(waited).toBeGreaterThanOrEqual(250);
      expect(waited).toBeLessThan(1500);
      await holder;
    });

    it.runIf(claims.waits)("releases when the critical section throws: the next acquirer gets in long before the TTL", async () => {
      const resource = resourceFor();
      await expect(strategy.withLock(resource, options({ ttlMs: 20_000 }), async () => {
        throw new Error("the work failed");
      })).rejects.toThrow("the work failed");
      const startedAt = Date.now();
      await strategy.withLock(resource, options({ ttlMs: 20_000, waitTimeoutMs: 5000 }), async () => {});
      expect(Date.now() - startedAt).toBeLessThan(2000);
    });

    it.runIf(claims.lease)("the signal aborts once the lease has run out", async () => {
      const resource = resourceFor();
      const seen = await strategy.withLock(resource, options({ ttlMs: 300 }), async (held) => {
        const early = held.signal.aborted;
        await sleep(700);
        return { early, late: held.signal.aborted, left: held.timeLeftMs?.() };
      });
      expect(seen.early).toBe(false);
      expect(seen.late).toBe(true);
      if (claims.checked === false) expect(seen.left).toBeUndefined();
      else expect(seen.left).toBeLessThan(0);
    });

    it.runIf(claims.fifo)("waiters of this process get the lock in arrival order", async () => {
      const resource = resourceFor();
      const order: number[] = [];
      await Promise.all(Array.from({ length: 20 }, (_, index) =>
        strategy.withLock(resource, options(), async () => {
          order.push(index);
          await sleep(2);
        })));
      expect(order).toEqual(Array.from({ length: 20 }, (_, index) => index));
    });

    it.runIf(Boolean(topology.stop?.length))("is unavailable when the servers it needs are down", async () => {
      for (const call of topology.stop ?? []) await stackControl(call);
      await expect(strategy.withLock(resourceFor(), options({ waitTimeoutMs: 3000 }), async () => {})).rejects.toBeInstanceOf(LockUnavailableError);
    });
  });
}

const REDIS_NODE_1 = { stop: ["/redis/1/stop"] } as const;
const TOKEN: Claims = { exclusive: true, waits: true, lease: true, fifo: true };

const CONTRACTS: Readonly<Record<StrategyName, readonly [Claims, Topology]>> = {
  none: [{ exclusive: false, waits: false, lease: false, fifo: false }, {}],
  local: [{ exclusive: true, waits: true, lease: false, fifo: true }, {}],
  // The articles' naive locks: every buyer contends in Redis on its own, so no arrival order.
  setnx: [{ ...TOKEN, checked: false, fifo: false }, REDIS_NODE_1],
  "token-lua": [TOKEN, REDIS_NODE_1],
  redlock: [TOKEN, { stop: ["/redis/3/stop", "/redis/4/stop", "/redis/5/stop"] }],
  "pg-for-update": [{ exclusive: true, waits: true, lease: true, fifo: false }, { stop: ["/postgres/stop"] }],
  // No lock at all: the purchase decrements atomically, so there is nothing to contend for.
  atomic: [{ exclusive: false, waits: false, lease: false, fifo: false }, {}],
  "setnx-no-expiry": [{ ...TOKEN, lease: false, fifo: false }, REDIS_NODE_1],
  "token-get-del": [{ ...TOKEN, fifo: false }, REDIS_NODE_1],
  "token-watch": [TOKEN, REDIS_NODE_1],
  // Renewed every TTL/3 while held: its lease does not run out under a working holder.
  "token-watchdog": [{ ...TOKEN, lease: false }, REDIS_NODE_1],
  "token-fencing": [TOKEN, REDIS_NODE_1],
  "token-reentrant": [TOKEN, REDIS_NODE_1],
  "pg-nowait": [{ exclusive: true, waits: false, lease: true, fifo: false }, { stop: ["/postgres/stop"] }],
  "pg-unfenced": [{ exclusive: true, waits: true, lease: true, checked: false, fifo: false }, { stop: ["/postgres/stop"] }],
  // With its primary and its replica both frozen there is nothing to fail over to. Paused rather
  // than stopped: restarted, the pair would resync and the Sentinels might swap their roles while
  // the next tests run.
  sentinel: [TOKEN, { stop: ["/sentinel-redis/1/pause", "/sentinel-redis/2/pause"] }],
  // The primary alone is not enough: without a replica to confirm it, no lock counts.
  "sentinel-wait": [TOKEN, { stop: ["/sentinel-redis/2/pause"] }],
  // Sessions and leases are kept alive while the holder works; without a quorum there is no lock.
  zookeeper: [{ ...TOKEN, lease: false }, { stop: ["/zookeeper/2/stop", "/zookeeper/3/stop"] }],
  etcd: [{ ...TOKEN, lease: false }, { stop: ["/etcd/2/stop", "/etcd/3/stop"] }],
  "zookeeper-unfenced": [{ ...TOKEN, lease: false }, { stop: ["/zookeeper/2/stop", "/zookeeper/3/stop"] }],
  "etcd-unfenced": [{ ...TOKEN, lease: false }, { stop: ["/etcd/2/stop", "/etcd/3/stop"] }],
  "zookeeper-sequencer": [{ ...TOKEN, lease: false }, { stop: ["/zookeeper/2/stop", "/zookeeper/3/stop"] }],
  "etcd-sequencer": [{ ...TOKEN, lease: false }, { stop: ["/etcd/2/stop", "/etcd/3/stop"] }],
};

for (const name of STRATEGY_NAMES) runLockContract(name, CONTRACTS[name][0], CONTRACTS[name][1]);
