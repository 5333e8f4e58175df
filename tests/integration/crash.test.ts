/**
 * An instance killed between the stock write and the order insert: the unit left the shelf with
 * its reservation, and the reconciler settles it — back on the shelf when nothing sold since, or
 * recorded as the buyer's order when the stock has moved on. Never lost, never both.
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { clearFaults, setFault } from "@/lib/lab/faults";
import { resetConfig } from "@/lib/sale/config";
import { getSaleStats } from "@/lib/sale/sale";
import { appRecorder } from "@/lib/timeline/holder-timeline";
import type { TimelineView } from "@/lib/timeline/view";
import { HONEST, currentSaleId, honest, pendingUnits, settledSale } from "../support/accounting";
import { adminFetch, signIn } from "../support/admin";
import { blast, instanceUrl, postBuy, prepareSale, stackControl } from "../support/stack";
import { sleep, waitFor } from "../support/wait";

const STOCK = 20;

afterEach(async () => {
  await clearFaults();
  await stackControl("/reset-faults");
});
afterAll(() => resetConfig());

async function buyThroughAppOne(): Promise<void> {
  await postBuy(instanceUrl(0), "crashed-buyer").catch(() => undefined); // its instance dies under it
}

/** Until the held purchase's unit is reserved (its stock written, its order not yet recorded). */
async function reservationAppeared(): Promise<void> {
  await waitFor(async () => pendingUnits(await currentSaleId()), {
    until: (pending) => pending.length > 0,
    timeoutMs: 10_000,
    intervalMs: 20,
    what: "the held purchase's unit to be reserved (a pending unit in Redis)",
  });
}

/** One buyer reserves a unit on app-1 and is held before its order; `meanwhile` runs; app-1 is SIGKILLed. */
async function killWhileReserved(meanwhile: () => Promise<void> = async () => {}): Promise<void> {
  await setFault("before-order-insert", 20_000, 1);
  const buying = buyThroughAppOne();
  await reservationAppeared();
  await meanwhile();
  await stackControl("/apps/1/kill");
  await buying;
  await clearFaults();
}

describe.each(["token-lua", "atomic"] as const)("%s, instance killed between the stock write and the order", (strategy) => {
  it("puts the unit back on the shelf when nothing sold since", async () => {
    await prepareSale({ strategy, workMs: 0, lockTtlMs: 5000, waitTimeoutMs: 10_000 }, STOCK);
    await killWhileReserved();
    const settled = await settledSale();
    expect(honest(settled)).toEqual(HONEST);
    expect(settled.orders).toBe(0);
    expect(settled.remaining).toBe(STOCK);
  });

  it("records the buyer's order when others bought meanwhile", async () => {
    await prepareSale({ strategy, workMs: 0, lockTtlMs: 5000, waitTimeoutMs: 10_000 }, STOCK);
    await killWhileReserved(async () => {
      // The delay held one purchase only: these go through app-2 at once.
      const others = await blast(instanceUrl(1), 5);
      expect(others.bought).toBe(5);
    });
    const settled = await settledSale();
    expect(honest(settled)).toEqual(HONEST);
    expect(settled.orders).toBe(6);
    expect(settled.orders + settled.remaining).toBe(STOCK);
  });
});

describe("an instance that dies inside the critical section", () => {
  it("counts as a holder no longer: the next holder, after the lease, is the only one inside", async () => {
    await prepareSale({ strategy: "token-lua", workMs: 0, lockTtlMs: 1000, waitTimeoutMs: 10_000 }, STOCK);
    const saleId = await currentSaleId();
    await setFault("in-critical-section", 20_000);
    const buying = buyThroughAppOne();
    await waitFor(async () => (await getSaleStats()).holdersNow, { until: (inside) => inside === 1, timeoutMs: 10_000, intervalMs: 20, what: "app-1's buyer to be inside" });
    // Stopped, not restarted (a kill is restarted at once, and a starting instance forgets its own
    // holders): the instance is gone while its buyer was inside.
    await stackControl("/apps/1/stop");
    await buying;
    await clearFaults();
    try {
      // The lease runs out (1 s); a buyer on app-2 gets the lock.
      await sleep(1200);
      expect((await postBuy(instanceUrl(1), "after-the-crash")).status).toBe(201);
      const stats = await getSaleStats();
      expect(stats.peakHolders).toBe(1);
      expect(stats.holdersNow).toBe(0);
    } finally {
      await stackControl("/apps/1/start");
    }
    expect(honest(await settledSale(saleId))).toEqual(HONEST);
  });
});

describe("the holder timeline of a unit given back", () => {
  it("a unit given back and bought again is sold once on the timeline, as in the orders", async () => {
    await prepareSale({ strategy: "token-lua", workMs: 0, lockTtlMs: 5000, waitTimeoutMs: 10_000 }, 1);
    const saleId = await currentSaleId();
    await killWhileReserved();
    // The last unit, written by a buyer whose order never landed: back on the shelf, then sold again.
    expect((await settledSale()).remaining).toBe(1);
    expect((await postBuy(instanceUrl(1), "second-buyer")).status).toBe(201);
    const settled = await settledSale();
    expect(honest(settled)).toEqual(HONEST);
    expect(settled.orders).toBe(1);

    const cookie = await signIn();
    await appRecorder().flush();
    const view = await waitFor(async () => (await adminFetch(cookie, "GET", `/api/admin/sales/${saleId}/timeline`)).json as unknown as TimelineView, {
      until: (timeline) => timeline.events.some((event) => event.kind === "given-back") && timeline.events.some((event) => event.kind === "order"),
      timeoutMs: 10_000,
      what: "the timeline to hold the give-back and the second buyer's order",
    });
    // Two writes of unit 1, one given back between them: the timeline agrees with the orders.
    expect(view.events.filter((event) => event.kind === "write")).toHaveLength(2);
    expect(view.report.unitsSoldTwice).toBe(0);
    expect(view.accounting.doubleSold).toBe(0);
  });
});

describe("a late write that lands on the same value as another buyer's (an ABA)", () => {
  it("is recorded as the unit sold twice, never given back on top of the other buyer's order", async () => {
    // No lock, 400 ms of work: two buyers read the same stock and both write stock − 1. One of them is
    // held before its order insert (once), so its reservation is still pending when the other's order
    // is in, and the stock reads exactly one below its unit, as if nothing had sold since.
    await prepareSale({ strategy: "none", workMs: 400, lockTtlMs: 5000, waitTimeoutMs: 10_000 }, STOCK);
    await setFault("before-order-insert", 8000, 1);
    const answers = await Promise.all([postBuy(instanceUrl(0), "aba-one"), postBuy(instanceUrl(1), "aba-two")]);
    const settled = await settledSale();
    // Both writes landed: unit 20 left the shelf twice. Giving one back would put a sold unit on sale again.
    expect(settled).toMatchObject({ orders: 2, doubleSold: 1, remaining: STOCK - 1, phantomUnits: 0, lostUnits: 0, pendingUnits: 0 });
    // The held purchase finds the order the reconciler recorded for it: both buyers have theirs.
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 201]);
  });
});

describe("one order per buyer, instance killed between the stock write and the order", () => {
  const prepareOnePerBuyer = () =>
    prepareSale({ strategy: "token-lua", workMs: 0, lockTtlMs: 5000, waitTimeoutMs: 10_000 }, STOCK, { onePerBuyer: true });

  /** The crashed buyer tries again through app-2 (app-1 is being restarted). */
  async function buyAgain(): Promise<{ status: number; code?: string }> {
    const response = await postBuy(instanceUrl(1), "crashed-buyer");
    const body = (await response.json()) as { code?: string };
    return { status: response.status, code: body.code };
  }

  /** The buyer's next tap is refused; the sale is honest, with `orders` orders and nobody holding two. */
  async function expectKeptOut(orders: number): Promise<void> {
    expect(await buyAgain()).toMatchObject({ status: 409, code: "one_per_buyer" });
    const after = await settledSale();
    expect(honest(after)).toEqual(HONEST);
    expect(after.orders).toBe(orders);
    expect((await getSaleStats()).buyersWithTwoOrders).toBe(0);
  }

  it("a unit given back frees its buyer: they buy once more, and nobody has two orders", async () => {
    await prepareOnePerBuyer();
    await killWhileReserved();
    const settled = await settledSale();
    expect(settled.orders).toBe(0);
    expect(settled.remaining).toBe(STOCK);

    expect((await buyAgain()).status).toBe(201);
    await expectKeptOut(1);
  });

  it("an order insert that comes too late finds its unit given back, and leaves the buyer's next order alone", async () => {
    await prepareOnePerBuyer();
    // app-1 reserves a unit and is slow to record it: the reconciler (3 s) gives the unit back first.
    await setFault("before-order-insert", 12_000, 1);
    const slow = postBuy(instanceUrl(0), "crashed-buyer");
    await reservationAppeared();
    const givenBack = await settledSale();
    expect(givenBack.orders).toBe(0);
    expect(givenBack.remaining).toBe(STOCK);

    // Freed with the unit, the buyer buys again while the slow purchase still waits.
    expect((await buyAgain()).status).toBe(201);
    const late = await slow;
    expect(late.status).toBe(503);
    // The late purchase learns its unit went back; the buyer's new order still keeps them out.
    await expectKeptOut(1);
  });

  it("a unit recorded as the buyer's order keeps them out", async () => {
    await prepareOnePerBuyer();
    await killWhileReserved(async () => {
      expect((await blast(instanceUrl(1), 5)).bought).toBe(5);
    });
    const settled = await settledSale();
    expect(settled.orders).toBe(6);

    await expectKeptOut(6);
  });
});
