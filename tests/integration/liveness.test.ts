/**
 * Liveness beside safety, and a wait timeout of 0.
 *  - A lock nobody will ever release (a holder of `setnx-no-expiry` that died): buyers keep coming
 *    and are turned away busy with stock left. The sale reads STUCK (never PASS) once nothing has
 *    moved for three wait timeouts; once the lock goes, it sells again and reads PASS.
 *  - `waitTimeoutMs: 0` is "try once, never wait": a lone buyer gets the lock and buys, under every
 *    lock strategy of the lesson; a buyer who finds the lock held is answered busy at once.
 */
import { afterAll, describe, expect, it } from "vitest";
import { clearFaults, setFault } from "@/lib/lab/faults";
import { getRedis } from "@/lib/redis";
import { resetConfig } from "@/lib/sale/config";
import { HONEST, currentSaleId, honest, pendingUnits, settledSale } from "../support/accounting";
import { adminFetch, signIn } from "../support/admin";
import { PUBLIC_URL, getSaleStats, instanceUrl, postBuy, prepareSale, stackControl } from "../support/stack";
import { sleep, waitFor } from "../support/wait";

afterAll(async () => {
  await stackControl("/reset-faults");
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

describe("a run whose lock stopped serving", () => {
  it("is stored STUCK, not PASS, though its unit still reserved waits 26 s to settle", async () => {
    const admin = await signIn();
    const created = await adminFetch(admin, "POST", "/api/admin/runs", { strategy: "setnx-no-expiry", workMs: 1, lockTtlMs: 1000, waitTimeoutMs: 400, initialStock: 20, vus: 4 });
    expect(created.status, created.text).toBe(201);
    const { run, reportToken } = created.json as { run: { id: number }; reportToken: string };
    const saleId = await currentSaleId();
    try {
      // A unit taken by a buyer whose order cannot be written stays reserved. The buyer is held
      // after taking it (the lab's before-order-insert point) while Postgres stops: stopping first
      // would trip the order breaker, which turns buyers away before they take a unit at all.
      await setFault("before-order-insert", 5000, 1);
      let reserved: number[];
      try {
        const held = postBuy(instanceUrl(0), "held-before-its-order");
        reserved = await waitFor(() => pendingUnits(saleId), { until: (pending) => pending.length > 0, timeoutMs: 10_000, intervalMs: 20, what: "the held buyer's unit to be reserved" });
        await stackControl("/postgres/stop");
        expect((await held).status).toBe(503);
        expect(await pendingUnits(saleId)).toEqual(reserved);
      } finally {
        await clearFaults();
      }
      // Then the lock stops serving (a holder that died with it), before Postgres is back: the
      // reconciler can give that unit back only under that lock.
      await getRedis().set("lock:goods:001", "a-holder-that-died");
      await stackControl("/postgres/start");
      let buyers = 0;
      await waitFor(async () => {
        await Promise.all(Array.from({ length: 4 }, () => postBuy(PUBLIC_URL, `run-stuck-${buyers++}`)));
        return getSaleStats();
      }, { until: (stats) => stats.verdict === "STUCK", timeoutMs: 30_000, intervalMs: 0, what: "the sale to read STUCK" });

      const completed = await fetch(`${PUBLIC_URL}/api/admin/runs/${run.id}/complete`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-run-token": reportToken },
        body: JSON.stringify({ tool: "node", requests: buyers + 1, bought: 0, soldOut: 0, busy: buyers, errors: 1, durationMs: 5000, latencyMs: { p50: 400, p95: 400, p99: 400 } }),
      });
      expect(completed.status).toBe(200);
      const stored = ((await completed.json()) as { run: { verdict: string; pendingUnits: number; lostUnits: number; doubleSold: number; orders: number } }).run;
      expect(stored).toMatchObject({ verdict: "STUCK", pendingUnits: reserved.length, lostUnits: 0, doubleSold: 0, orders: 0 });
    } finally {
      await stackControl("/postgres/start");
      // A run left running holds the stack: the next test could not start one (409 run_in_progress).
      await adminFetch(admin, "POST", `/api/admin/runs/${run.id}/cancel`);
    }

    // The lock goes: the reconciler settles the reserved units and the sale is honest.
    await getRedis().del("lock:goods:001");
    expect(honest(await settledSale(saleId, 30_000))).toEqual(HONEST);
  }, 90_000);
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
