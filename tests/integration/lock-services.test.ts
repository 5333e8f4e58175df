/**
 * The articles' other lock services on the real stack, through nginx: ZooKeeper and etcd are CP —
 * without a quorum there is no lock, so every buyer is told 503 and nothing is sold or lost, and
 * sales resume once the members are back; after a planned Sentinel failover (nothing left
 * unreplicated) the sale goes on honestly on the promoted primary, and `sentinel-wait` stays honest
 * all through the switch, while two primaries take writes.
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

  /**
   * A planned failover is no switch at one instant. Measured here (Redis 7.0): the old primary goes
   * on taking writes ~11 s after the replica's promotion, until the Sentinels make it the new one's
   * replica, and the Sentinel leading the failover names the promoted replica ~150 ms before the
   * clients listening for `+switch-master` move. A client that asks it then writes to the new
   * primary while the others still write to the old one: two primaries, each granting the lock.
   * The plain `sentinel` lock makes no promise there (README: safe while the primary lives); the
   * first test buys once the switch is over, the second buys all through it with `sentinel-wait`.
   */
  it("sentinel: once the old primary is the promoted one's replica, the sale goes on there with every unit sold once", async () => {
    await prepareSale({ strategy: "sentinel", workMs: 5, lockTtlMs: 2000, waitTimeoutMs: 10_000 }, 60);
    const first = await blast(PUBLIC_URL, 20);
    expect(first.bought).toBe(20);

    const before = await failOverAndWait();
    await waitForDemoted(before);

    // Buyers whose instance is still moving may be told 503; once the app's clients follow, they buy again.
    const after = await blastUntilBought(PUBLIC_URL, 20);
    expect(after.bought).toBeGreaterThan(0);
    const checked = await settledSale();
    expect(honest(checked)).toEqual(HONEST);
    expect(checked.orders + checked.remaining).toBe(60);
    expect(checked.orders).toBe(first.bought + after.bought);
  });

  it("sentinel-wait: buyers all through the switch, two primaries for seconds, and no unit sold twice", async () => {
    const STOCK_THROUGH = 200;
    await prepareSale({ strategy: "sentinel-wait", workMs: 5, lockTtlMs: 2000, waitTimeoutMs: 3000 }, STOCK_THROUGH);
    const first = await blast(PUBLIC_URL, 10);
    expect(first.bought).toBe(10);

    let bought = first.bought;
    let refused = 0;
    let demoted = false;
    let boughtAfter = 0;
    let sawTwoPrimaries = false;
    const before = await failOverAndWait();
    // Bounded: blasts of 5 until the old primary has been a replica for one blast that bought, or 40 s.
    const deadline = Date.now() + 40_000;
    while (Date.now() < deadline && !(demoted && boughtAfter > 0)) {
      const wasDemoted = demoted;
      const [round, role] = await Promise.all([blast(PUBLIC_URL, 5), roleOf(before)]);
      bought += round.bought;
      refused += round.unavailable;
      if (role === "master") sawTwoPrimaries = true;
      if (wasDemoted) boughtAfter += round.bought;
      demoted = role === "slave";
    }
    expect(sawTwoPrimaries, "the old primary still took writes after the promotion").toBe(true);
    expect(demoted, "the old primary became the promoted one's replica").toBe(true);
    expect(boughtAfter, "buyers bought again after the switch").toBeGreaterThan(0);
    expect(refused, "buyers during the switch were told 503").toBeGreaterThan(0);
    const checked = await settledSale();
    expect(honest(checked)).toEqual(HONEST);
    expect(checked.orders).toBe(bought);
    expect(checked.orders + checked.remaining).toBe(STOCK_THROUGH);
  });

  /** `SENTINEL FAILOVER`, then waits until the Sentinels name another primary; resolves with the old one. */
  async function failOverAndWait(): Promise<string> {
    const before = await primary(sentinel);
    await sentinel.call("SENTINEL", "FAILOVER", env.SENTINEL_MASTER);
    const promoted = await waitFor(() => primary(sentinel), {
      until: (address) => address !== before,
      timeoutMs: 20_000,
      intervalMs: 200,
      what: `the Sentinels to promote the replica (a primary other than ${before})`,
    });
    expect(promoted, "the Sentinels promoted the replica").not.toBe(before);
    return before;
  }

  async function waitForDemoted(address: string): Promise<void> {
    await waitFor(() => roleOf(address), {
      until: (role) => role === "slave",
      timeoutMs: 30_000,
      intervalMs: 200,
      what: `the old primary ${address} to become the promoted one's replica`,
    });
  }
});

/** What `ROLE` says `address` is now ("master", "slave"), on a connection of the test's own. */
async function roleOf(address: string): Promise<string> {
  const client = new Redis({ ...splitAddress(address), lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 1000 });
  client.on("error", () => {});
  try {
    const [role] = (await client.call("ROLE")) as [string];
    return role;
  } finally {
    client.disconnect();
  }
}

function splitAddress(address: string) {
  const [host, port] = address.split(":");
  return { host, port: Number(port) };
}

async function primary(sentinel: Redis): Promise<string> {
  const [host, port] = (await sentinel.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", getEnv().SENTINEL_MASTER)) as string[];
  return `${host}:${port}`;
}
