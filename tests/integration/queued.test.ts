/**
 * A buyer's wait timeout counts from when nginx read the request (X-Request-Start), so a request
 * that waited its whole timeout in a busy instance's queue is answered busy before it touches the
 * stock, instead of being served past it.
 */
import { afterAll, describe, expect, it } from "vitest";
import { resetConfig } from "@/lib/sale/config";
import { getStock } from "@/lib/sale/sale";
import { checkSale } from "../support/accounting";
import { PUBLIC_URL, instanceUrl, postBuy, prepareSale } from "../support/stack";

afterAll(() => resetConfig());

const WAIT_TIMEOUT_MS = 2000;
const stamp = (msAgo: number) => `t=${((Date.now() - msAgo) / 1000).toFixed(3)}`;

async function buy(baseUrl: string, buyer: string, requestStart?: string) {
  const response = await postBuy(baseUrl, buyer, requestStart ? { "x-request-start": requestStart } : {});
  return { status: response.status, body: (await response.json()) as { code?: string; message?: string } };
}

describe.each(["token-lua", "atomic"] as const)("%s: time queued before the handler counts against the wait timeout", (strategy) => {
  it("a request that already waited its whole timeout is answered 423 busy and takes nothing", async () => {
    await prepareSale({ strategy, workMs: 0, waitTimeoutMs: WAIT_TIMEOUT_MS }, 10);
    const late = await buy(instanceUrl(0), "queued-too-long", stamp(WAIT_TIMEOUT_MS + 500));
    expect(late.status).toBe(423);
    expect(late.body.code).toBe("busy");
    expect(late.body.message).toMatch(/already waited \d+ ms in the instance's queue/);
    expect(await getStock()).toBe(10);
    expect((await checkSale()).orders).toBe(0);

    // Queued for less than the timeout, or not stamped at all: served as usual.
    expect((await buy(instanceUrl(1), "queued-a-little", stamp(300))).status).toBe(201);
    expect((await buy(instanceUrl(0), "not-stamped")).status).toBe(201);
    expect(await getStock()).toBe(8);
  });
});

it("through nginx the stamp is nginx's own: a stamp the client sends is replaced", async () => {
  await prepareSale({ strategy: "token-lua", workMs: 0, waitTimeoutMs: WAIT_TIMEOUT_MS }, 10);
  // Passed through, this 59 s old stamp would be answered busy (as straight to an instance above).
  expect((await buy(PUBLIC_URL, "forged-old", stamp(59_000))).status).toBe(201);
  expect(await getStock()).toBe(9);
});

it("a wait timeout of 0 means never wait, not never sell: a lock-free purchase still sells", async () => {
  await prepareSale({ strategy: "atomic", workMs: 0, waitTimeoutMs: 0 }, 10);
  expect((await buy(PUBLIC_URL, "no-wait")).status).toBe(201);
  expect(await getStock()).toBe(9);
});
