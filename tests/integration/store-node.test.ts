/**
 * The store's own Redis node (node 1: the stock, the sale, its reservations, the room's joins and
 * the admin sessions) crashed and started again, as a SIGKILL and a supervisor's restart would, or
 * shut down and started through the control API. It keeps an append-only file, so the same sale
 * goes on where it was: the same stock, nothing lost, a phone that joined before buys without
 * joining again, the instructor stays signed in. While it is down buyers get 503 `unavailable`
 * and nothing is taken. (Before, node 1 ran without persistence: 800 units of a sale of 1,000 read
 * as lost, FAIL, every buyer got 409, phones had to join again and the instructor signed in again.)
 */
import { afterAll, describe, expect, it } from "vitest";
import { resetConfig } from "@/lib/sale/config";
import { HONEST, currentSaleId, honest, settledSale } from "../support/accounting";
import { adminFetch, signIn } from "../support/admin";
import { postFrom } from "../support/phone";
import { PUBLIC_URL, blast, getSaleStats, postBuy, prepareSale, stackControl } from "../support/stack";
import { waitFor } from "../support/wait";

const STOCK = 1000;
const SOLD_BEFORE = 200;

afterAll(async () => {
  await stackControl("/reset-faults");
  await resetConfig();
});

interface NodeStatus {
  readonly redis: readonly { index: number; up: boolean; pid: number | null }[];
}
const nodeOne = async () => ((await stackControl("/status", "GET")) as NodeStatus).redis.find((node) => node.index === 1)!;

describe.each([
  ["killed (SIGKILL) and started again", "/redis/1/kill"],
  ["shut down and started again", "/redis/1/stop"],
] as const)("Redis node 1 %s mid-sale", (_how, downRoute) => {
  it("keeps the same sale with its stock, its phone and its instructor; buyers meanwhile get 503 and take nothing", async () => {
    await prepareSale({ strategy: "token-lua", workMs: 0, lockTtlMs: 2000, waitTimeoutMs: 10_000 }, STOCK);
    const saleId = await currentSaleId();
    let sold = 0;
    for (let round = 0; round < 20 && sold < SOLD_BEFORE; round++) sold += (await blast(PUBLIC_URL, Math.min(50, SOLD_BEFORE - sold))).bought;
    expect(sold).toBe(SOLD_BEFORE);
    expect(await getSaleStats()).toMatchObject({ id: saleId, remaining: STOCK - SOLD_BEFORE, orders: SOLD_BEFORE, lostUnits: 0, verdict: "PASS" });

    // A phone on the LAN (another loopback address) joins; the instructor is signed in.
    const phone = `127.3.${(process.pid % 200) + 1}.${downRoute.endsWith("kill") ? 21 : 22}`;
    const joined = await postFrom(phone, "/api/workshop/join", { name: "Before the crash" });
    expect(joined.status).toBe(201);
    const cookie = joined.setCookie.find((c) => c.startsWith("locklab_buyer="))!.split(";")[0]!;
    const admin = await signIn();
    expect((await adminFetch(admin, "GET", "/api/admin/runs")).status).toBe(200);

    const before = await nodeOne();
    await stackControl(downRoute);
    try {
      // The fault happened: node 1 does not answer.
      expect(await nodeOne()).toMatchObject({ up: false });
      const buyer = await postBuy(PUBLIC_URL, "while-node-1-is-down");
      const answer = (await buyer.json()) as { code?: string };
      expect(buyer.status, JSON.stringify(answer)).toBe(503);
      expect(answer.code).toBe("unavailable");
      expect((await postFrom(phone, "/api/buy", { buyer: "ignored" }, cookie)).status).toBe(503);
      const figures = await fetch(`${PUBLIC_URL}/api/sale`);
      expect(figures.status).toBe(503);
      expect(((await figures.json()) as { code: string }).code).toBe("unavailable");
    } finally {
      await stackControl("/redis/1/start");
    }
    const after = await nodeOne();
    expect(after.up).toBe(true);
    expect(after.pid).not.toBe(before.pid);

    // The same sale, its stock where it was: nothing taken while node 1 was down, nothing lost.
    const stats = await waitFor(() => getSaleStats().catch(() => undefined), { until: (s) => s !== undefined, timeoutMs: 10_000, intervalMs: 100, what: "the sale's figures after node 1 is back" });
    expect(stats).toMatchObject({ id: saleId, remaining: STOCK - SOLD_BEFORE, orders: SOLD_BEFORE, lostUnits: 0, phantomUnits: 0, doubleSold: 0, verdict: "PASS" });

    // The phone buys as the person who joined (never asked to join again), once the instances
    // have reconnected; the instructor is still signed in.
    const bought = await waitFor(() => postFrom(phone, "/api/buy", { buyer: "ignored" }, cookie), {
      until: (response) => response.status !== 503, timeoutMs: 10_000, intervalMs: 100, what: "the phone's purchase after node 1 is back",
    });
    expect(bought.status, JSON.stringify(bought.body)).toBe(201);
    expect((await adminFetch(admin, "GET", "/api/admin/runs")).status).toBe(200);

    const settled = await settledSale(saleId);
    expect(honest(settled)).toEqual(HONEST);
    expect(settled).toMatchObject({ orders: SOLD_BEFORE + 1, remaining: STOCK - SOLD_BEFORE - 1 });
  }, 90_000);
});
