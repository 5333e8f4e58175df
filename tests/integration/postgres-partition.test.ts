/**
 * Postgres cut off from both app instances, as a partition does it: packets dropped both ways, no
 * refusal, no reset (the lab's link cut, docs/network-faults.md). Before the main pool had a query
 * timeout an order batch waited forever on its open connection, its buyer never got an answer and
 * the order store's breaker never heard of a failure. Now each instance answers its buyer
 * `503 unavailable` within the pool's query timeout (never a 500, never no answer), the unit that
 * buyer took stays reserved for the reconciler, and the next buyers are turned away at once, before
 * they take a unit. Healed, the store sells again and every unit is accounted for.
 */
import { afterAll, expect, it } from "vitest";
import { QUERY_TIMEOUT_MS } from "@/lib/db-config";
import { resetConfig } from "@/lib/sale/config";
import { getStock } from "@/lib/sale/sale";
import { HONEST, currentSaleId, honest, pendingUnits, settledSale } from "../support/accounting";
import { blastUntilBought, instanceUrl, postBuy, prepareSale, stackControl } from "../support/stack";

const STOCK = 20;

afterAll(async () => {
  await stackControl("/reset-faults");
  await resetConfig();
});

/** One buyer at one instance (not through nginx, which would try the other): the answer's status, code and time. */
async function timedBuy(index: number, buyer: string): Promise<{ status: number; code?: string; ms: number; text: string }> {
  const startedAt = Date.now();
  const response = await postBuy(instanceUrl(index), buyer);
  const text = await response.text();
  return { status: response.status, code: (JSON.parse(text) as { code?: string }).code, ms: Date.now() - startedAt, text };
}

it("cut from Postgres, each instance answers its buyer 503 within the query timeout with the unit reserved, turns the next away at once, and sells again once healed", async () => {
  const network = (await stackControl("/network", "GET")) as { available: boolean };
  expect(network.available, "links can be cut on this machine (root, nft)").toBe(true);
  await prepareSale({ strategy: "atomic", workMs: 0, waitTimeoutMs: 3000 }, STOCK);
  // Each instance has a pool connection open to Postgres: the cut drops its packets, it does not close it.
  for (const index of [0, 1]) expect((await postBuy(instanceUrl(index), `before-cut-${index}`)).status).toBe(201);
  const saleId = await currentSaleId();

  const cuts = [{ client: "app-1", server: "postgres", direction: "both" }, { client: "app-2", server: "postgres", direction: "both" }];
  const cut = (await stackControl("/network/grudge", "POST", { cuts })) as { cuts: unknown[] };
  expect(cut.cuts).toEqual(cuts);
  try {
    for (const index of [0, 1]) {
      const first = await timedBuy(index, `cut-${index}`);
      expect(first.status, first.text).toBe(503);
      expect(first.code).toBe("unavailable");
      // Bounded by the pool: a connect (3 s) or an answer (the query timeout), never the test's own timeout.
      expect(first.ms, first.text).toBeLessThan(QUERY_TIMEOUT_MS + 3000);
    }
    // The two units taken are reserved, not lost (the test reaches Redis; only the instances are cut).
    expect(await pendingUnits(saleId)).toHaveLength(2);
    expect((await getStock()) + 2).toBe(STOCK - 2);

    // The breaker tripped on each instance: turned away at once, before taking a unit.
    const stockBefore = await getStock();
    for (const index of [0, 1]) {
      const next = await timedBuy(index, `after-trip-${index}`);
      expect(next.status, next.text).toBe(503);
      expect(next.code).toBe("unavailable");
      expect(next.ms).toBeLessThan(2500);
    }
    expect(await getStock()).toBe(stockBefore);
  } finally {
    await stackControl("/network/heal");
  }

  // Healed: the breaker's probe lets buyers through again, and the reservations are settled.
  for (const index of [0, 1]) expect((await blastUntilBought(instanceUrl(index), 1, 30_000)).bought).toBeGreaterThan(0);
  const settled = await settledSale(saleId, 40_000);
  expect(honest(settled)).toEqual(HONEST);
  expect(settled.orders + settled.remaining).toBe(STOCK);
});
