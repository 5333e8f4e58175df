/**
 * Liveness beside safety, and a wait timeout of 0.
 *  - A lock nobody will ever release (a holder of `setnx-no-expiry` that died): buyers keep coming
 *    and are turned away busy with stock left. The sale reads STUCK (never PASS) once nothing has
 *    moved for three wait timeouts; once the lock goes, it sells again and reads PASS.
 *  - `waitTimeoutMs: 0` is "try once, never wait": a lone buyer gets the lock and buys, under every
 *    lock strategy of the lesson; a buyer who finds the lock held is answered busy at once.
 */
import { afterAll, describe, expect, it } from "vitest";
import { getRedis } from "@/lib/redis";
import { resetConfig } from "@/lib/sale/config";
import { HONEST, honest, settledSale } from "../support/accounting";
import { PUBLIC_URL, getSaleStats, postBuy, prepareSale } from "../support/stack";
import { sleep, waitFor } from "../support/wait";

afterAll(async () => {
  await getRedis().del("lock:goods:001");
  await resetConfig();
});

describe("a lock that is never released", () => {
  it("reads STUCK while buyers are turned away with stock left, and PASS again once it sells", async () => {
    const waitTimeoutMs = 400;
    await prepareSale({ strategy: "setnx-no-expiry", workMs: 1, lockTtlMs: 1000, waitTimeoutMs }, 20);
    // The dead holder's lock: set with no expiry, as setnx-no-expiry's holder left it when it crashed.
    await getRedis().set("lock:goods:001", "a-holder-that-died");
    expect((await getSaleStats()).verdict).toBe("PASS");

    let buyers = 0;
    const stuck = await waitFor(async () => {
      const answers = await Promise.all(Array.from({ length: 4 }, () => postBuy(PUBLIC_URL, `stuck-${buyers++}`)));
      expect(answers.every((answer) => answer.status === 423)).toBe(true);
      return getSaleStats();
    }, { until: (stats) => stats.verdict === "STUCK", timeoutMs: 15_000, intervalMs: 0, what: "the sale to read STUCK" });
    expect(stuck).toMatchObject({ liveness: "stuck", remaining: 20, orders: 0, doubleSold: 0, lostUnits: 0 });
    // Three wait timeouts at least (and 2 s) of nothing moving, with buyers turned away throughout.
    expect(stuck.stuckForMs).toBeGreaterThanOrEqual(2000);
    expect(stuck.refusedSinceMoved).toBeGreaterThanOrEqual(3);

    await getRedis().del("lock:goods:001");
    expect((await postBuy(PUBLIC_URL, "unstuck")).status).toBe(201);
    const after = await getSaleStats();
    expect(after).toMatchObject({ liveness: "live", verdict: "PASS", orders: 1 });
  });

  it("a sale nobody is trying to buy from is not stuck", async () => {
    await prepareSale({ strategy: "setnx-no-expiry", workMs: 1, lockTtlMs: 1000, waitTimeoutMs: 300 }, 20);
    await getRedis().set("lock:goods:001", "a-holder-that-died");
    for (let buyer = 0; buyer < 4; buyer++) expect((await postBuy(PUBLIC_URL, `gone-${buyer}`)).status).toBe(423);
    // Buyers stopped coming: after the wait timeout and the arrival window, nobody is being turned away.
    await sleep(300 + 5000 + 500);
    expect((await getSaleStats()).liveness).toBe("live");
    await getRedis().del("lock:goods:001");
  });
});

describe.each(["token-lua", "redlock", "pg-for-update", "setnx", "zookeeper", "etcd", "sentinel", "local", "atomic"] as const)(
  "%s with a wait timeout of 0",
  (strategy) => {
    it("sells to a lone buyer: try once, never wait, is not never try", async () => {
      await prepareSale({ strategy, workMs: 0, lockTtlMs: 2000, waitTimeoutMs: 0 }, 10);
      const lone = await postBuy(PUBLIC_URL, `zero-${strategy}`);
      expect(lone.status, await lone.clone().text()).toBe(201);
      expect(honest(await settledSale())).toEqual(HONEST);
    });
  },
);
