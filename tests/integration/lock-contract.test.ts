/**
 * The lock contract in node-redlock's shape: one `runLockContract` registered once per strategy,
 * each strategy built by its factory on this test's own clients and run in this process against
 * the real Redis nodes and Postgres (no app, no nginx). What every strategy promises its caller,
 * claim by claim — and where a claim does not hold, the test of what the strategy does instead,
 * so no strategy silently skips a test:
 *
 * - exclusive: one holder at a time among 200 concurrent acquirers / the unsafe ones overlap.
 * - waits: a waiter is busy at its wait timeout (a library that counts tries instead: within half
 *   to one and a half of it) / a lock that never waits answers busy at once (pg-nowait), and no
 *   lock at all lets the second caller straight in (none, atomic).
 * - a wait timeout of 0 tries once: it gets a free lock, and is busy at once behind a holder.
 * - release when the critical section throws / nothing to release without a lock.
 * - lease: the signal aborts once the lease ran out / without a lease (or with one renewed while
 *   the holder works) the signal never aborts, however far the work runs past the TTL.
 * - fifo: waiters of this process get in in arrival order / they all get in, in no promised order.
 * - unavailable when its servers are down / a strategy that needs no server works without one.
 *
 * The end-to-end contract through nginx stays in contract.test.ts.
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { LockClients } from "@/lib/locks/clients";
import { etcdLeaseSeconds } from "@/lib/locks/etcd-lock";
import { STRATEGY_FACTORIES, STRATEGY_NAMES, type StrategyName } from "@/lib/locks/strategies";
import { LockBusyError, LockUnavailableError, ReplicaUnconfirmedError, type LockOptions } from "@/lib/locks/types";
import { zookeeperSessionMs } from "@/lib/locks/zookeeper-lock";
import { resetConfig } from "@/lib/sale/config";
import { SKU } from "@/lib/sale/keys";
import { openLockClients } from "../support/lock-clients";
import { stackControl } from "../support/stack";
import { sleep, waitFor } from "../support/wait";

interface Topology {
  /** The stack-control calls that take away what the strategy needs (to see "unavailable"). Empty: it needs no server. */
  readonly stop?: readonly string[];
}

interface Claims {
  /** Two holders never overlap (false: the unsafe strategy shows overlap under contention). */
  readonly exclusive: boolean;
  /** A waiter gives up as busy at its wait timeout (false: it never waits at all). */
  readonly waits: boolean;
  /** `signal` aborts when the lease runs out (false: no lease, or one renewed while the holder works). */
  readonly lease: boolean;
  /**
   * Without a lease that runs out (`lease: false`): the lease is renewed while the holder works
   * (watchdog, ZooKeeper session, etcd keepalive), so the holder's time left stays positive.
   * Absent: there is no lease at all, and no time left to ask.
   */
  readonly renews?: boolean;
  /** The holder can ask its lease's time left (every lease but the naive setnx, which skips the check on purpose). */
  readonly checked?: boolean;
  /** Waiters of this process get the lock in arrival order (the local line's promise). */
  readonly fifo: boolean;
  /**
   * An unlock may run on a session that does not hold the lock (a pooler's, pg-advisory-pooled):
   * the lock is left behind, and waiters that land on other sessions are busy at their wait
   * timeout. Only such a strategy may refuse some of the 200 acquirers (busy, nothing else).
   */
  readonly strands?: boolean;
  /**
   * The wait is a number of tries on the library's own timer, not a deadline (the Redlock-style
   * peers: retryCount = ceil(wait / retryDelay), 200 ± 100 ms apart): a waiter gives up after about
   * half to one and a half times its wait timeout, so its lower bound is half the wait.
   */
  readonly retries?: boolean;
  /**
   * Every holder and waiter opens a Postgres connection of its own (peer-advisory-lock: a new
   * pg.Client per lock(), no pool): 200 at once can pass the server's max_connections, and the
   * acquirers Postgres turns away ("too many clients", 53300) are answered busy. Only they (and
   * stranded waiters) may be refused among the 200 acquirers.
   */
  readonly connectionEach?: boolean;
  /**
   * The lock counts only once a replica has acknowledged it (`WAIT 1`, REPLICA_ACK_MS): a replica
   * that falls behind for that long — a 2-core machine busy with the whole suite starves it now and
   * then — makes that acquirer `unavailable` (503), the answer a slow dependency must get. Among the
   * 200 acquirers only such refusals may appear, and only a few (a replica that never answers
   * refuses them all).
   */
  readonly replicaAck?: boolean;
}

let nextResource = 0;
/** Each test its own resource, so no lock of an earlier test is in the way. */
const freshResource = () => `contract:${process.pid}:${++nextResource}`;
/** The longest a test's holder stays inside before it gives up on being let go (a failing test never strands it). */
const MAX_HOLD_MS = 10_000;

afterEach(async () => {
  await stackControl("/reset-faults");
});
const clients = openLockClients();
afterAll(async () => {
  await clients.close();
  await resetConfig();
});

/** Lock clients that reach no server: every one throws when asked for. */
function unreachableClients(): LockClients {
  const refuse = (what: string) => (): never => {
    throw new Error(`${what}: this strategy was promised to need no server`);
  };
  const refusingSignals = new Proxy({}, { get: (_target, property) => refuse(`release signals (${String(property)})`)() });
  return {
    redis: refuse("redis"),
    redisNodes: refuse("redisNodes"),
    watchConnection: refuse("watchConnection"),
    lockPool: refuse("lockPool"),
    bouncerPool: refuse("bouncerPool"),
    services: refuse("services"),
    releases: refusingSignals as LockClients["releases"],
    sentinelReleases: refusingSignals as LockClients["sentinelReleases"],
    clusterReleases: refusingSignals as LockClients["clusterReleases"],
  };
}

/**
 * The lease a strategy really holds for a TTL knob of `ttlMs`: ZooKeeper's session timeout and
 * etcd's whole-second lease have bounds of their own (lib/locks/zookeeper-lock.ts, etcd-lock.ts).
 */
function grantedLeaseMs(name: StrategyName, ttlMs: number): number {
  if (name.startsWith("etcd")) return etcdLeaseSeconds(ttlMs) * 1000;
  if (name.startsWith("zookeeper")) return zookeeperSessionMs(ttlMs);
  return ttlMs;
}

function runLockContract(name: StrategyName, claims: Claims, topology: Topology) {
  const strategy = STRATEGY_FACTORIES[name](clients);
  // The row lock locks a row of lock_rows: the seeded one. The advisory locks need no row.
  const resourceFor = () => (name.startsWith("pg-") && !name.startsWith("pg-advisory") ? SKU : freshResource());
  const options = (overrides: Partial<LockOptions> = {}): LockOptions => ({ ttlMs: 5000, waitTimeoutMs: 10_000, ...overrides });

  /**
   * Runs `body` while another acquirer of `resource` is inside the lock, and lets that holder go
   * once `body` is done, whatever it did. The holder gives up after MAX_HOLD_MS (and fails the
   * test) if it is never let go.
   */
  async function whileHeld<T>(resource: string, body: () => Promise<T>): Promise<T> {
    let entered = false;
    let letGo = false;
    let inside!: () => void;
    const holderInside = new Promise<void>((resolve) => (inside = resolve));
    const holder = strategy.withLock(resource, options(), async () => {
      entered = true;
      inside();
      await waitFor(() => letGo, { timeoutMs: MAX_HOLD_MS, what: "the test to let its holder go" });
    });
    await Promise.race([holderInside, holder]);
    if (!entered) throw new Error("the holder left without ever being inside");
    let result: T;
    try {
      result = await body();
    } catch (error) {
      letGo = true;
      await holder.catch(() => undefined);
      throw error;
    }
    letGo = true;
    await holder;
    return result;
  }

  describe(`${name} (in-process contract)`, () => {
    // ── exclusive ──────────────────────────────────────────────────────────────────────────────
    it(claims.exclusive ? "200 concurrent acquirers: one holder at a time" : "200 concurrent acquirers: holders overlap, as this strategy shows", async () => {
      const resource = resourceFor();
      let inside = 0;
      let peak = 0;
      let entered = 0;
      // Waiters stranded behind a lock nobody holds would wait out the whole timeout: a shorter one.
      const answers = await Promise.allSettled(Array.from({ length: 200 }, () =>
        strategy.withLock(resource, options({ waitTimeoutMs: claims.strands ? 5000 : 60_000 }), async () => {
          entered++;
          inside++;
          peak = Math.max(peak, inside);
          await sleep(1); // a holder that works a moment, so an overlap would show
          inside--;
        })));
      const refused = answers.flatMap((answer) => (answer.status === "rejected" ? [answer.reason as unknown] : []));
      // A lock that does not wait (NOWAIT) answers busy instead of queueing, a stranded waiter is
      // busy at its timeout, and an acquirer Postgres has no connection left for is busy; nothing
      // else may fail.
      if (claims.strands || claims.connectionEach) expect(refused.every((reason) => reason instanceof LockBusyError)).toBe(true);
      else if (claims.replicaAck) {
        expect(refused.filter((reason) => !(reason instanceof ReplicaUnconfirmedError))).toEqual([]);
        expect(refused.length).toBeLessThanOrEqual(10);
      } else if (claims.waits || !claims.exclusive) expect(refused).toEqual([]);
      else expect(refused.every((reason) => reason instanceof LockBusyError)).toBe(true);
      expect(entered).toBeGreaterThan(0);
      if (claims.exclusive) expect(peak).toBe(1);
      else expect(peak).toBeGreaterThan(1);
    });

    // ── waits ──────────────────────────────────────────────────────────────────────────────────
    if (claims.waits) {
      it("a waiter is answered busy at its wait timeout while another holds the lock", async () => {
        const resource = resourceFor();
        await whileHeld(resource, async () => {
          const startedAt = Date.now();
          await expect(strategy.withLock(resource, options({ waitTimeoutMs: 300 }), async () => {})).rejects.toBeInstanceOf(LockBusyError);
          const waited = Date.now() - startedAt;
          expect(waited).toBeGreaterThanOrEqual(claims.retries ? 150 : 250);
          expect(waited).toBeLessThan(1500);
        });
      });
    } else if (claims.exclusive) {
      it("does not wait: a buyer who finds the lock held is answered busy at once, long before its wait timeout", async () => {
        const resource = resourceFor();
        await whileHeld(resource, async () => {
          const startedAt = Date.now();
          await expect(strategy.withLock(resource, options({ waitTimeoutMs: 10_000 }), async () => {})).rejects.toBeInstanceOf(LockBusyError);
          expect(Date.now() - startedAt).toBeLessThan(1000);
        });
      });
    } else {
      it("never waits: a second caller runs its critical section while another is inside", async () => {
        const resource = resourceFor();
        await whileHeld(resource, async () => {
          const startedAt = Date.now();
          await expect(strategy.withLock(resource, options({ waitTimeoutMs: 10_000 }), async () => "ran beside the holder")).resolves.toBe("ran beside the holder");
          expect(Date.now() - startedAt).toBeLessThan(1000);
        });
      });
    }

    // ── a wait timeout of 0 ────────────────────────────────────────────────────────────────────
    // Every lock tries once before it looks at its deadline (lib/locks/contend.ts; NOWAIT for the
    // row lock). The strategies with no lock never look at the wait timeout: their "never waits"
    // test above is the whole of it for them.
    if (claims.exclusive) {
      it("a wait timeout of 0 tries once: it gets a free lock, and is answered busy at once while another holds it", async () => {
        const resource = resourceFor();
        await expect(strategy.withLock(resource, options({ waitTimeoutMs: 0 }), async () => "in")).resolves.toBe("in");
        await whileHeld(resource, async () => {
          const startedAt = Date.now();
          await expect(strategy.withLock(resource, options({ waitTimeoutMs: 0 }), async () => {})).rejects.toBeInstanceOf(LockBusyError);
          expect(Date.now() - startedAt).toBeLessThan(1000);
        });
      });
    }

    // ── release on a throw ─────────────────────────────────────────────────────────────────────
    if (claims.exclusive) {
      it("releases when the critical section throws: the next acquirer gets in long before the TTL", async () => {
        const resource = resourceFor();
        await expect(strategy.withLock(resource, options({ ttlMs: 20_000 }), async () => {
          throw new Error("the work failed");
        })).rejects.toThrow("the work failed");
        const startedAt = Date.now();
        await strategy.withLock(resource, options({ ttlMs: 20_000, waitTimeoutMs: 5000 }), async () => {});
        expect(Date.now() - startedAt).toBeLessThan(2000);
      });
    } else {
      it("has nothing to release: the critical section's error reaches the caller as it is, and the next caller runs", async () => {
        const resource = resourceFor();
        await expect(strategy.withLock(resource, options({ ttlMs: 20_000 }), async () => {
          throw new Error("the work failed");
        })).rejects.toThrow("the work failed");
        await expect(strategy.withLock(resource, options({ ttlMs: 20_000, waitTimeoutMs: 0 }), async () => "next")).resolves.toBe("next");
      });
    }

    // ── lease ──────────────────────────────────────────────────────────────────────────────────
    if (claims.lease) {
      it("the signal aborts once the lease has run out", async () => {
        const resource = resourceFor();
        const seen = await strategy.withLock(resource, options({ ttlMs: 300 }), async (held) => {
          const early = held.signal.aborted;
          await sleep(700); // work past the 300 ms lease
          return { early, late: held.signal.aborted, left: held.timeLeftMs?.() };
        });
        expect(seen.early).toBe(false);
        expect(seen.late).toBe(true);
        if (claims.checked === false) expect(seen.left).toBeUndefined();
        else expect(seen.left).toBeLessThan(0);
      });
    } else {
      const workMs = grantedLeaseMs(name, 300) + 400;
      it(claims.renews
        ? `its lease is renewed while the holder works: ${workMs} ms of work on a TTL of 300 ms, and the signal never aborts`
        : `holds no lease: ${workMs} ms of work on a TTL of 300 ms, and the signal never aborts`, async () => {
        const resource = resourceFor();
        const seen = await strategy.withLock(resource, options({ ttlMs: 300 }), async (held) => {
          const early = held.signal.aborted;
          await sleep(workMs); // work 400 ms past the lease the strategy was granted for a TTL of 300 ms
          return { early, late: held.signal.aborted, left: held.timeLeftMs?.() };
        });
        expect(seen.early).toBe(false);
        expect(seen.late).toBe(false);
        // A holder that never checks its lease (the unfenced lab variants) has no time left to tell.
        if (claims.renews && claims.checked !== false) expect(seen.left).toBeGreaterThan(0);
        else expect(seen.left).toBeUndefined();
      });
    }

    // ── fifo ───────────────────────────────────────────────────────────────────────────────────
    if (claims.fifo) {
      it("waiters of this process get the lock in arrival order", async () => {
        const resource = resourceFor();
        const order: number[] = [];
        await Promise.all(Array.from({ length: 20 }, (_, index) =>
          strategy.withLock(resource, options(), async () => {
            order.push(index);
            await sleep(2); // each holder works a moment, so the others queue behind it
          })));
        expect(order).toEqual(Array.from({ length: 20 }, (_, index) => index));
      });
    } else if (claims.waits) {
      // No arrival order is promised, and none can be asserted against: any order, in order too,
      // is correct. What holds is that every waiter gets its turn, alone.
      it("waiters of this process all get the lock, one at a time, in no promised order", async () => {
        const resource = resourceFor();
        const order: number[] = [];
        let inside = 0;
        let peak = 0;
        await Promise.all(Array.from({ length: 20 }, (_, index) =>
          strategy.withLock(resource, options(), async () => {
            inside++;
            peak = Math.max(peak, inside);
            order.push(index);
            await sleep(2); // each holder works a moment, so the others queue behind it
            inside--;
          })));
        expect([...order].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, index) => index));
        if (claims.exclusive) expect(peak).toBe(1);
      });
    }
    // Neither FIFO nor waiting (none, atomic, pg-nowait): nobody ever waits in a line, so there is
    // no order of waiters to assert; the "waits" tests above say what they do instead.

    // ── unavailable ────────────────────────────────────────────────────────────────────────────
    if (topology.stop?.length) {
      it("is unavailable when the servers it needs are down", async () => {
        for (const call of topology.stop ?? []) await stackControl(call);
        await expect(strategy.withLock(resourceFor(), options({ waitTimeoutMs: 3000 }), async () => {})).rejects.toBeInstanceOf(LockUnavailableError);
      });
    } else {
      it("needs no server: built on clients that reach none, it still runs the critical section", async () => {
        const serverless = STRATEGY_FACTORIES[name](unreachableClients());
        await expect(serverless.withLock(resourceFor(), options(), async () => "ran")).resolves.toBe("ran");
      });
    }
  });
}

const REDIS_NODE_1 = { stop: ["/redis/1/stop"] } as const;
const REDIS_MAJORITY_DOWN = { stop: ["/redis/3/stop", "/redis/4/stop", "/redis/5/stop"] } as const;
const TOKEN: Claims = { exclusive: true, waits: true, lease: true, fifo: true };
const PEER_REDLOCK: Claims = { ...TOKEN, checked: false, fifo: false, retries: true };
const PEER_SEMAPHORE: Claims = { exclusive: true, waits: true, lease: false, renews: true, checked: false, fifo: false };

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
  "token-watchdog": [{ ...TOKEN, lease: false, renews: true }, REDIS_NODE_1],
  "token-fencing": [TOKEN, REDIS_NODE_1],
  "token-reentrant": [TOKEN, REDIS_NODE_1],
  "pg-nowait": [{ exclusive: true, waits: false, lease: true, fifo: false }, { stop: ["/postgres/stop"] }],
  "pg-unfenced": [{ exclusive: true, waits: true, lease: true, checked: false, fifo: false }, { stop: ["/postgres/stop"] }],
  // With its primary and its replica both frozen there is nothing to fail over to. Paused rather
  // than stopped: restarted, the pair would resync and the Sentinels might swap their roles while
  // the next tests run.
  sentinel: [TOKEN, { stop: ["/sentinel-redis/1/pause", "/sentinel-redis/2/pause"] }],
  // The primary alone is not enough: without a replica to confirm it, no lock counts.
  "sentinel-wait": [{ ...TOKEN, replicaAck: true }, { stop: ["/sentinel-redis/2/pause"] }],
  // Sessions and leases are kept alive while the holder works; without a quorum there is no lock.
  zookeeper: [{ ...TOKEN, lease: false, renews: true }, { stop: ["/zookeeper/2/stop", "/zookeeper/3/stop"] }],
  etcd: [{ ...TOKEN, lease: false, renews: true }, { stop: ["/etcd/2/stop", "/etcd/3/stop"] }],
  // As the recipes are usually written: the holder trusts its lock, so no time left is offered to check.
  "zookeeper-unfenced": [{ ...TOKEN, lease: false, renews: true, checked: false }, { stop: ["/zookeeper/2/stop", "/zookeeper/3/stop"] }],
  "etcd-unfenced": [{ ...TOKEN, lease: false, renews: true, checked: false }, { stop: ["/etcd/2/stop", "/etcd/3/stop"] }],
  "zookeeper-sequencer": [{ ...TOKEN, lease: false, renews: true }, { stop: ["/zookeeper/2/stop", "/zookeeper/3/stop"] }],
  "etcd-sequencer": [{ ...TOKEN, lease: false, renews: true }, { stop: ["/etcd/2/stop", "/etcd/3/stop"] }],
  "redlock-fenced": [TOKEN, { stop: ["/redis/3/stop", "/redis/4/stop", "/redis/5/stop"] }],
  "sentinel-fenced": [TOKEN, { stop: ["/sentinel-redis/1/pause", "/sentinel-redis/2/pause"] }],
  // The lock key's slot may be any primary's. Every member stopped at once (not paused, not one by
  // one): no replica is left to be promoted, so reset-faults brings the cluster back with the roles
  // of the stack's start. A pause longer than the node timeout could end in a failover at resume.
  cluster: [TOKEN, { stop: ["/redis-cluster/stop"] }],
  "cluster-fenced": [TOKEN, { stop: ["/redis-cluster/stop"] }],
  // Without a replica to confirm it, no lock counts: the three replicas of a fresh stack (4–6) frozen.
  "cluster-wait": [{ ...TOKEN, replicaAck: true }, { stop: ["/redis-cluster/4/pause", "/redis-cluster/5/pause", "/redis-cluster/6/pause"] }],
  // Postgres queues the waiters in no promised order; a lease (Postgres ends a session idle past the TTL).
  "pg-advisory": [{ exclusive: true, waits: true, lease: true, fifo: false }, { stop: ["/postgres/stop"] }],
  // Through PgBouncer: without it there is no lock.
  "pg-advisory-xact": [{ exclusive: true, waits: true, lease: true, fifo: false }, { stop: ["/pgbouncer/1/stop"] }],
  // The session lock through PgBouncer: a second caller is lent the holder's server connection and
  // gets the lock beside it (never waits); no lease, no fence; unlocks that land elsewhere strand it.
  "pg-advisory-pooled": [{ exclusive: false, waits: false, lease: false, fifo: false, strands: true }, { stop: ["/pgbouncer/1/stop"] }],
  // The npm lock libraries (lib/locks/peer-lock.ts). The Redlock-style ones: `redlock`'s row, but
  // no local line (each buyer retries on the library's timer: no arrival order), no time left
  // offered to check (their users write unchecked, as the unfenced variants), and a wait that is a
  // count of tries. Their signal aborts at the library's own `expiration` (a lease).
  "peer-redlock5": [PEER_REDLOCK, REDIS_MAJORITY_DOWN],
  "peer-redlock4": [PEER_REDLOCK, REDIS_MAJORITY_DOWN],
  "peer-sesamecare-redlock": [PEER_REDLOCK, REDIS_MAJORITY_DOWN],
  // The same without jitter (200 ms apart): still a count of tries, never less than the wait.
  "peer-redlock-universal": [PEER_REDLOCK, REDIS_MAJORITY_DOWN],
  // redis-semaphore: polls every 10 ms until acquireTimeout, a deadline (= the wait); its own
  // refresh renews the lock every 0.8 × TTL while held, and it tells its holder nothing but a loss.
  "peer-semaphore-mutex": [PEER_SEMAPHORE, REDIS_NODE_1],
  "peer-semaphore-redlock-mutex": [PEER_SEMAPHORE, REDIS_MAJORITY_DOWN],
  // advisory-lock: a session lock (no TTL, no lease), Postgres queues the waiters in no promised
  // order (lock_timeout is the wait); a connection of its own per holder and waiter.
  "peer-advisory-lock": [{ exclusive: true, waits: true, lease: false, fifo: false, connectionEach: true }, { stop: ["/postgres/stop"] }],
};

for (const name of STRATEGY_NAMES) runLockContract(name, CONTRACTS[name][0], CONTRACTS[name][1]);
