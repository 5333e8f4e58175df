/**
 * The articles' other lock services on the real stack, through nginx: ZooKeeper and etcd are CP —
 * without a quorum there is no lock, so every buyer is told 503 and nothing is sold or lost, and
 * sales resume once the members are back; a planned Sentinel failover (nothing left unreplicated)
 * moves the lock's primary and the sale goes on honestly after the switch.
 */
import Redis from "ioredis";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { getEnv } from "@/lib/env";
import { resetConfig } from "@/lib/sale/config";
import { HONEST, honest, settledSale } from "../support/accounting";
import { PUBLIC_URL, blast, blastUntilBought, prepareSale, stackControl } from "../support/stack";
import { waitFor } from "../support/wait";
import { contenders, describeContenders } from "../support/zookeeper";

const STOCK = 20;

afterEach(async () => {
  await stackControl("/reset-faults");
});
afterAll(() => resetConfig());

describe.each([
  ["zookeeper", "/zookeeper"],
  ["etcd", "/etcd"],
] as const)("%s without a quorum", (strategy, route) => {
  it("answers every buyer 503 unavailable with two of three members stopped, sells nothing, loses nothing, and sells again once they are back", async () => {
    await prepareSale({ strategy, workMs: 5, lockTtlMs: 2000, waitTimeoutMs: 3000 }, STOCK);
    await stackControl(`${route}/2/stop`);
    await stackControl(`${route}/3/stop`);

    const down = await blast(PUBLIC_URL, 20);
    expect(down.statuses).toEqual({ "503 unavailable": 20 });
    const during = await settledSale();
    expect(honest(during)).toEqual(HONEST);
    expect(during.orders).toBe(0);
    expect(during.remaining).toBe(STOCK);

    await stackControl("/reset-faults");
    const back = await blastUntilBought(PUBLIC_URL, 5).catch(async (error: unknown) => {
      // Say what held the lock: a znode's owning session and age tell an orphan from a holder.
      if (strategy !== "zookeeper") throw error;
      const found = await contenders().then(describeContenders, (e: unknown) => `the contenders could not be read: ${String(e)}`);
      throw new Error(`${(error as Error).message}; under the lock's path: ${found}`, { cause: error });
    });
    expect(back.bought).toBeGreaterThan(0);
    const after = await settledSale();
    expect(honest(after)).toEqual(HONEST);
    expect(after.orders + after.remaining).toBe(STOCK);
  });
});

describe("sentinel: a planned failover", () => {
  const env = getEnv();
  const sentinel = new Redis({ ...splitAddress(env.SENTINELS[0]!), lazyConnect: true, maxRetriesPerRequest: 1 });
  afterAll(() => sentinel.disconnect());

  it("moves the lock to the promoted replica, and the sale goes on with every unit sold once", async () => {
    await prepareSale({ strategy: "sentinel", workMs: 5, lockTtlMs: 2000, waitTimeoutMs: 10_000 }, 60);
    const before = await primary(sentinel);
    const first = await blast(PUBLIC_URL, 20);
    expect(first.bought).toBe(20);

    await sentinel.call("SENTINEL", "FAILOVER", env.SENTINEL_MASTER);
    const promoted = await waitFor(() => primary(sentinel), {
      until: (address) => address !== before,
      timeoutMs: 15_000,
      intervalMs: 200,
      what: `the Sentinels to promote the replica (a primary other than ${before})`,
    });
    expect(promoted, "the Sentinels promoted the replica").not.toBe(before);

    // Buyers during the switch may be told 503; once the app's clients follow, they buy again.
    const after = await blastUntilBought(PUBLIC_URL, 20);
    expect(after.bought).toBeGreaterThan(0);
    const checked = await settledSale();
    expect(honest(checked)).toEqual(HONEST);
    expect(checked.orders + checked.remaining).toBe(60);
    expect(checked.orders).toBe(first.bought + after.bought);
  });
});

function splitAddress(address: string) {
  const [host, port] = address.split(":");
  return { host, port: Number(port) };
}

async function primary(sentinel: Redis): Promise<string> {
  const [host, port] = (await sentinel.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", getEnv().SENTINEL_MASTER)) as string[];
  return `${host}:${port}`;
}
