/**
 * ZooKeeper: no orphan znode ever blocks the lock. Each member is killed in turn (as the members
 * panel kills them) during a 20 s `zookeeper` load of 50 buyers, so the instances' sessions move
 * from member to member and creates and removes are cut off mid-call. Within one session timeout
 * after the last member is back, purchases succeed again on both instances, the lock's path holds
 * no contender's znode, and the accounting is 0 sold twice, 0 lost.
 */
import zookeeper from "node-zookeeper-client";
import { afterAll, expect, it } from "vitest";
import { getEnv } from "@/lib/env";
import { resetConfig } from "@/lib/sale/config";
import { HONEST, honest, settledSale } from "../support/accounting";
import { closedLoad, countAnswers } from "../support/closed-load";
import { PUBLIC_URL, instanceUrl, postBuy, prepareSale, stackControl } from "../support/stack";
import { sleep, waitFor } from "../support/wait";

const SESSION_MS = 2000;
const LOCK_PATH = `/locklab/locks/${encodeURIComponent("goods:001")}`;

afterAll(async () => {
  await stackControl("/reset-faults");
  await resetConfig();
});

/** The znodes under the lock's path, read with a client of the test's own. */
async function contenders(): Promise<string[]> {
  const client = zookeeper.createClient(getEnv().ZOOKEEPER_HOSTS.join(","), { sessionTimeout: 4000, retries: 0 });
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no ZooKeeper member answered")), 5000);
      client.once("connected", () => (clearTimeout(timer), resolve()));
      client.connect();
    });
    return await new Promise<string[]>((resolve, reject) =>
      client.getChildren(LOCK_PATH, (error, children) => (error ? ("getCode" in error && error.getCode() === zookeeper.Exception.NO_NODE ? resolve([]) : reject(error)) : resolve(children))),
    );
  } finally {
    client.close();
  }
}

it("each member killed in turn under load: within a session timeout of the last restart both instances sell again, with no znode left behind", async () => {
  await prepareSale({ strategy: "zookeeper", workMs: 5, lockTtlMs: SESSION_MS, waitTimeoutMs: 3000 }, 100_000);
  const stop = new AbortController();
  const loading = closedLoad(PUBLIC_URL, { buyers: 50, stop: stop.signal, prefix: "zk-orphans" });
  const killedAt: number[] = [];
  for (const member of [1, 2, 3]) {
    await sleep(2500);
    await stackControl(`/zookeeper/${member}/kill`);
    killedAt.push(Date.now());
    await sleep(2500);
    await stackControl(`/zookeeper/${member}/start`);
  }
  await sleep(2500);
  stop.abort();
  const answers = await loading;
  console.log(`zookeeper, members killed in turn: ${JSON.stringify(countAnswers(answers))}`);
  expect(killedAt).toHaveLength(3);
  expect(answers.filter((a) => a.status === 201).length).toBeGreaterThan(0);

  // Within one session timeout (and the time a buyer takes) of the last member coming back,
  // both instances sell again: nothing left in the ensemble blocks the lock.
  for (const instance of [0, 1]) {
    const response = await waitFor(() => postBuy(instanceUrl(instance), `zk-after-${instance}-${Date.now()}`), {
      until: (r) => r.status === 201,
      // The load went on 2.5 s past the last restart; from here, a session timeout and a few buyers' turns.
      timeoutMs: SESSION_MS + 3000,
      intervalMs: 100,
      what: `app-${instance + 1} to sell under zookeeper again`,
    });
    expect(response.status).toBe(201);
  }
  expect(await waitFor(contenders, { until: (children) => children.length === 0, timeoutMs: SESSION_MS + 2000, what: "no contender's znode left" })).toEqual([]);
  expect(honest(await settledSale(undefined, 30_000))).toEqual(HONEST);
});
