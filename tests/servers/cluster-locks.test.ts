/**
 * The Redis Cluster strategies on a cluster of this test's own (six redis-server in cluster mode,
 * made as the stack makes its own: three primaries, one replica each), no stack:
 *   - exclusion: 200 acquirers from two processes at once (two "instances", 100 each), no two
 *     ever inside together, every one of them in;
 *   - release on a throw: the next acquirer gets in at once, not after the TTL;
 *   - cluster-wait: with no replica to confirm it, no lock counts (unavailable), and none is left behind;
 *   - with every node down the lock is unavailable (503) within the client's few tries, not a hung
 *     buyer, and it locks again once the cluster is back (the ended client replaced).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lockKey } from "@/lib/locks/keys";
import { STRATEGY_FACTORIES } from "@/lib/locks/strategies";
import { LockUnavailableError, type LockOptions } from "@/lib/locks/types";
import { waitFor } from "../support/wait";
import { serverLockClients, type ServerLockClients } from "./support/lock-clients";
import { machineUnfit, startRedisCluster, stopServers, type TestCluster } from "./support/servers";
import { fromTwoInstances } from "./support/two-instances";

const unfit = machineUnfit(["redis-cluster"]);
let resources = 0;
const freshResource = () => `servers:${process.pid}:${++resources}`;
const options = (overrides: Partial<LockOptions> = {}): LockOptions => ({ ttlMs: 5000, waitTimeoutMs: 10_000, ...overrides });

describe.skipIf(unfit !== null)(`the Redis Cluster locks on a cluster of the test's own${unfit ? ` (skipped: ${unfit})` : ""}`, () => {
  let cluster: TestCluster;
  let clients: ServerLockClients;

  beforeAll(async () => {
    cluster = await startRedisCluster();
    clients = serverLockClients({ clusterNodes: cluster.nodes });
  });

  afterAll(async () => {
    await clients?.close();
    await stopServers();
  });

  for (const name of ["cluster", "cluster-wait"] as const) {
    it(`${name}: 200 acquirers from two processes at once, one holder at a time, every one in`, async () => {
      const seen = await fromTwoInstances({ strategy: name, resource: freshResource(), perInstance: 100, workMs: 1, waitTimeoutMs: 60_000, ttlMs: 5000, clusterNodes: cluster.nodes });
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
      // The key is gone from the slot's primary, not merely expiring.
      expect(await clients.services().redisCluster().exists(lockKey(resource))).toBe(0);
      const startedAt = Date.now();
      await strategy.withLock(resource, options({ ttlMs: 20_000 }), async () => {});
      // A lock left to its TTL would keep it out 20 s; a quarter of that is no loaded machine's round trip.
      expect(Date.now() - startedAt).toBeLessThan(20_000 / 4);
    });
  }

  it("cluster-wait: while no replica can confirm it, no lock counts — unavailable, and the key is not left behind", async () => {
    const strategy = STRATEGY_FACTORIES["cluster-wait"](clients);
    const resource = freshResource();
    const replicas = await cluster.replicas();
    expect(replicas).toHaveLength(3);
    for (const index of replicas) cluster.pause(index);
    try {
      await expect(strategy.withLock(resource, options({ waitTimeoutMs: 3000 }), async () => "in")).rejects.toBeInstanceOf(LockUnavailableError);
      expect(await clients.services().redisCluster().exists(lockKey(resource))).toBe(0);
      // The plain cluster lock does not ask a replica: it is had at once.
      await expect(STRATEGY_FACTORIES.cluster(clients).withLock(resource, options(), async () => "in")).resolves.toBe("in");
    } finally {
      for (const index of replicas) cluster.resume(index);
    }
  });

  it("cluster: unavailable within a few seconds while every node is down, and it locks again once they are back", async () => {
    const strategy = STRATEGY_FACTORIES.cluster(clients);
    await strategy.withLock(freshResource(), options(), async () => {});
    await cluster.stopAll();
    try {
      const startedAt = Date.now();
      await expect(strategy.withLock(freshResource(), options({ waitTimeoutMs: 3000 }), async () => "in")).rejects.toBeInstanceOf(LockUnavailableError);
      expect(Date.now() - startedAt).toBeLessThan(5000);
    } finally {
      await cluster.startAll();
    }
    await waitFor(() => strategy.withLock(freshResource(), options({ waitTimeoutMs: 1000 }), async () => "in"), {
      what: "the cluster lock to be had again once every node is back",
      timeoutMs: 10_000,
      until: (answer) => answer === "in",
    });
  });
});
