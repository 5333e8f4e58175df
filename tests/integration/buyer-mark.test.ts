/**
 * One order per buyer: a buyer is marked by the same script as the stock write that sells them a
 * unit, so a mark exists exactly when such a write landed. A mark without a unit — a write refused,
 * or one that never reached Redis — would keep a buyer out of a sale they bought nothing in.
 * Against the real Redis of the stack: the critical section's scripts directly, then the purchase
 * over HTTP through nginx.
 */
import { afterAll, expect, it } from "vitest";
import { enterCriticalSection, takeUnitAtomically } from "@/lib/purchase/critical-section";
import { getRedis } from "@/lib/redis";
import { getActiveConfig, resetConfig } from "@/lib/sale/config";
import { CONFIG_KEY, STOCK_KEY, saleCounterKeys } from "@/lib/sale/keys";
import { PUBLIC_URL, getSaleStats, postBuy, prepareSale } from "../support/stack";

afterAll(async () => {
  await resetConfig();
});

const redis = getRedis();
const instance = "buyer-mark-test";
const stamp = Date.now();

async function currentSale(): Promise<{ saleId: number; epoch: number; marked: (buyer: string) => Promise<boolean> }> {
  const { id: saleId } = await getSaleStats();
  const { epoch } = await getActiveConfig();
  const buyers = saleCounterKeys(saleId).buyers;
  return { saleId, epoch, marked: async (buyer) => (await redis.sismember(buyers, buyer)) === 1 };
}

const stock = async () => Number(await redis.get(STOCK_KEY));

it("under a lock, the buyer is marked by the write that lands, and not by a refused write or a holder that wrote nothing", async () => {
  await prepareSale({ strategy: "token-lua", workMs: 0 }, 3, { onePerBuyer: true });
  const { saleId, epoch, marked } = await currentSale();

  const first = await enterCriticalSection(redis, { saleId, instance, epoch });
  expect(first.stock).toBe(3);
  expect(await first.leave(2, undefined, `landed-${stamp}`)).toBe("written");
  expect(await marked(`landed-${stamp}`)).toBe(true);
  expect(await stock()).toBe(2);

  // A switch that gave up waiting for this holder bumped the epoch: its write is refused, and so is the mark.
  const late = await enterCriticalSection(redis, { saleId, instance, epoch });
  expect(late.stock).toBe(2);
  await redis.hincrby(CONFIG_KEY, "epoch", 1);
  expect(await late.leave(1, undefined, `refused-${stamp}`)).toBe("switching");
  expect(await marked(`refused-${stamp}`)).toBe(false);
  expect(await stock()).toBe(2);

  // A holder that leaves without writing (sold out, lease too short) marks nobody.
  const idle = await enterCriticalSection(redis, { saleId, instance, epoch: epoch + 1 });
  expect(await idle.leave(undefined, undefined, `wrote-nothing-${stamp}`)).toBe("written");
  expect(await marked(`wrote-nothing-${stamp}`)).toBe(false);
});

it("lock-free, the atomic take checks and marks the buyer in the step that takes the unit", async () => {
  await prepareSale({ strategy: "atomic", workMs: 0 }, 1, { onePerBuyer: true });
  const { saleId, epoch, marked } = await currentSale();
  const reservation = (buyer: string) => ({ id: "", buyer, instance, strategy: "atomic", runId: null });

  expect(await takeUnitAtomically(redis, saleId, epoch, reservation(`first-${stamp}`), "", `first-${stamp}`)).toEqual({ stockSeen: 1, stockLeft: 0 });
  expect(await marked(`first-${stamp}`)).toBe(true);
  expect(await takeUnitAtomically(redis, saleId, epoch, reservation(`first-${stamp}`), "", `first-${stamp}`)).toBe("already-bought");
  // Sold out: nothing taken, nobody marked, so the buyer is not kept out of a restocked sale.
  expect(await takeUnitAtomically(redis, saleId, epoch, reservation(`late-${stamp}`), "", `late-${stamp}`)).toBe("sold-out");
  expect(await marked(`late-${stamp}`)).toBe(false);
  expect(await stock()).toBe(0);
});

it("over HTTP under atomic, a buyer's simultaneous taps get one unit; a buyer who met the sold-out sign is not marked", async () => {
  await prepareSale({ strategy: "atomic", workMs: 0 }, 2, { onePerBuyer: true });
  const { marked } = await currentSale();
  const buy = async (buyer: string) => {
    const response = await postBuy(PUBLIC_URL, buyer);
    return { status: response.status, code: ((await response.json()) as { code?: string }).code };
  };

  const taps = await Promise.all(Array.from({ length: 4 }, () => buy(`racer-${stamp}`)));
  expect(taps.filter((t) => t.status === 201)).toHaveLength(1);
  expect(taps.filter((t) => t.status === 409 && t.code === "one_per_buyer")).toHaveLength(3);
  expect((await buy(`second-${stamp}`)).status).toBe(201);
  expect(await buy(`third-${stamp}`)).toEqual({ status: 409, code: "sold_out" });
  expect(await marked(`third-${stamp}`)).toBe(false);

  const stats = await getSaleStats();
  expect(stats.orders).toBe(2);
  expect(stats.buyersWithTwoOrders).toBe(0);
  expect(stats.verdict).toBe("PASS");
});
