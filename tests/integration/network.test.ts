/**
 * Network faults on the real stack: a cut is real packet drops between one app instance and one
 * server — the instance's calls hang to their own timeout (a purchase answers 503) while the other
 * instance, and the reverse direction, are untouched — and a heal brings the same connections back.
 * A Redis node's clock really moves.
 */
import { execFileSync } from "node:child_process";
import { afterAll, expect, it } from "vitest";
import { getEnv } from "@/lib/env";
import { createRedisClient } from "@/lib/redis";
import { resetConfig } from "@/lib/sale/config";
import { HONEST, honest, settledSale } from "../support/accounting";
import { instanceUrl, postBuy, prepareSale, stackControl } from "../support/stack";
import { waitFor } from "../support/wait";

afterAll(async () => {
  await stackControl("/reset-faults");
  await resetConfig();
});

interface Network {
  available: boolean;
  cuts: { client: string; server: string; direction: string }[];
}

it("cutting app-1 from the stock's node turns app-1's buyers away after their timeout, app-2's sell, and a heal brings app-1 back", async () => {
  const network = (await stackControl("/network", "GET")) as Network;
  expect(network.available, "links can be cut on this machine (root, nft)").toBe(true);
  // The stack's own table, owned by its nft process, exists while the stack runs.
  expect(execFileSync("nft", ["list", "tables"], { encoding: "utf8" })).toMatch(/table inet locklab\b/);

  await prepareSale({ strategy: "atomic", workMs: 0, waitTimeoutMs: 3000 }, 10);
  expect((await postBuy(instanceUrl(0), "before-cut")).status).toBe(201);
  const cut = (await stackControl("/network/grudge", "POST", { cuts: [{ client: "app-1", server: "redis-1", direction: "to-server" }] })) as Network;
  expect(cut.cuts).toEqual([{ client: "app-1", server: "redis-1", direction: "to-server" }]);

  const startedAt = Date.now();
  const cutOff = await postBuy(instanceUrl(0), "during-cut-1");
  const tookMs = Date.now() - startedAt;
  // Not refused at once: its call hung on an open connection until its own command timeout (2 s).
  expect(cutOff.status).toBe(503);
  expect(tookMs).toBeGreaterThanOrEqual(1500);
  expect((await postBuy(instanceUrl(1), "during-cut-2")).status).toBe(201);

  await stackControl("/network/heal");
  // The same connection carries app-1's calls again once TCP retransmits (its backoff grew during the cut).
  const back = await waitFor(() => postBuy(instanceUrl(0), `after-heal-${Date.now()}`), { until: (r) => r.status === 201, timeoutMs: 15_000, intervalMs: 200, what: "app-1 to sell again after the heal" });
  expect(back.status).toBe(201);
  // Whatever app-1 sent during the cut landed, and is settled: nothing lost, nothing sold twice.
  expect(honest(await settledSale(undefined, 30_000))).toEqual(HONEST);
});

it("a Redis node's clock jumps 15 s ahead: its keys expire by its clock, and a reset brings it back", async () => {
  const node5 = createRedisClient(getEnv().REDIS_NODES[4]!, "locklab-test-clock");
  try {
    await node5.set("locklab:test:clock", "1", "PX", 10_000);
    const [before] = await node5.time();
    const jumped = (await stackControl("/redis/5/clock", "POST", { jumpS: 15 })) as { measuredOffsetS: number };
    expect(jumped.measuredOffsetS).toBeGreaterThan(14);
    const [after] = await node5.time();
    expect(Number(after) - Number(before)).toBeGreaterThanOrEqual(14);
    // A 10 s expiry is past on a clock 15 s ahead.
    expect(await node5.get("locklab:test:clock")).toBeNull();
    await stackControl("/redis/5/clock", "POST", { reset: true });
    const [reset] = await node5.time();
    expect(Math.abs(Number(reset) - Math.floor(Date.now() / 1000))).toBeLessThanOrEqual(2);
  } finally {
    await node5.quit();
  }
});
