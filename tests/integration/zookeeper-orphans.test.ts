/**
 * ZooKeeper: no orphan znode ever blocks the lock. Each member is killed in turn (as the members
 * panel kills them) during a 20 s `zookeeper` load of 50 buyers, so the instances' sessions move
 * from member to member and creates and removes are cut off mid-call. Within one session timeout
 * after the last member is back, purchases succeed again on both instances, the lock's path holds
 * no contender's znode, and the accounting is 0 sold twice, 0 lost.
 */
import { randomUUID } from "node:crypto";
import zookeeper from "node-zookeeper-client";
import { afterAll, expect, it } from "vitest";
import { openLockServices } from "@/lib/lock-services";
import { now } from "@/lib/locks/lease";
import { IDLE_AUDIT_MS, auditIdleNow, keepsStateFor, sweepOurs, zookeeperLock, zookeeperLockPath, zookeeperSessionMs } from "@/lib/locks/zookeeper-lock";
import { resetConfig } from "@/lib/sale/config";
import { HONEST, honest, settledSale } from "../support/accounting";
import { closedLoad, countAnswers } from "../support/closed-load";
import { openLockClients } from "../support/lock-clients";
import { PUBLIC_URL, instanceUrl, postBuy, prepareSale, stackControl } from "../support/stack";
import { sleep, waitFor } from "../support/wait";
import { childrenNow, contenders, describeContenders, plantContender, zkCall } from "../support/zookeeper";

const SESSION_MS = 2000;

const clients = openLockClients();

afterAll(async () => {
  await stackControl("/reset-faults");
  await resetConfig();
  await clients.close();
});

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
    // The answer's status and body, so a timeout says what the instance answered (busy, 503, …).
    const response = await waitFor(async () => {
      const r = await postBuy(instanceUrl(instance), `zk-after-${instance}-${Date.now()}`);
      return { status: r.status, body: (await r.json().catch(() => null)) as unknown };
    }, {
      until: (r) => r.status === 201,
      // The load went on 2.5 s past the last restart; from here, a session timeout and a few buyers' turns.
      timeoutMs: SESSION_MS + 3000,
      intervalMs: 100,
      what: `app-${instance + 1} to sell under zookeeper again`,
    }).catch(async (error: Error) => {
      // Say what stood in the way: the znodes under the lock's path and whose sessions they are.
      throw new Error(`${error.message}; under the lock's path: ${describeContenders(await contenders().catch(() => []))}`, { cause: error });
    });
    expect(response.status).toBe(201);
  }
  expect(await waitFor(() => contenders(), { until: (children) => children.length === 0, timeoutMs: SESSION_MS + 2000, what: "no contender's znode left" })).toEqual([]);
  expect(honest(await settledSale(undefined, 30_000))).toEqual(HONEST);
});

it("a znode of the contender's own session left ahead of it (a create whose answer never came) is removed, not waited on", async () => {
  const resource = `zk-own-orphan-${randomUUID()}`;
  const options = { ttlMs: SESSION_MS, waitTimeoutMs: 3000 };
  const client = await clients.services().zookeeper(SESSION_MS);
  // The orphan: named as a contender's, in the very session the lock will use, and nobody's sweep knows it.
  const orphan = await plantContender(client, resource);
  const childrenOf = () => childrenNow(client, zookeeperLockPath(resource));
  expect(await childrenOf(), "the orphan is in place").toEqual([orphan]);

  const lock = zookeeperLock(clients, resource, options);
  const startedAt = Date.now();
  const validUntil = await lock.acquire(Date.now() + options.waitTimeoutMs);
  const waitedMs = Date.now() - startedAt;
  expect(validUntil, "a lease still good").toBeGreaterThan(now());
  // Not held up to the deadline (3 s) behind the orphan: it got the lock, and the orphan is gone.
  expect(waitedMs).toBeLessThan(options.waitTimeoutMs);
  const left = await childrenOf();
  expect(left).toHaveLength(1);
  expect(left).not.toContain(orphan);
  expect(await lock.release()).toBe(true);
  expect(await childrenOf()).toEqual([]);
});

it("a znode of another session ahead of the contender is a holder: it waits, and is told busy at its deadline", async () => {
  const resource = `zk-other-holder-${randomUUID()}`;
  const options = { ttlMs: SESSION_MS, waitTimeoutMs: 1500 };
  const other = openLockServices("test-other-holder");
  try {
    await plantContender(await other.zookeeper(4000), resource);
    const lock = zookeeperLock(clients, resource, options);
    await expect(lock.acquire(Date.now() + options.waitTimeoutMs)).rejects.toMatchObject({ name: "LockBusyError" });
  } finally {
    await other.close();
  }
});

it("an orphan of an idle instance's session is removed within a second: the other instance's contender gets the lock without the first contending again", async () => {
  const resource = `zk-idle-orphan-${randomUUID()}`;
  const options = { ttlMs: SESSION_MS, waitTimeoutMs: 3000 };
  const client = await clients.services().zookeeper(SESSION_MS);
  const dir = zookeeperLockPath(resource);
  const childrenOf = () => childrenNow(client, dir);
  // This instance's last buyer takes the lock and lets it go; the instance then has no buyer.
  const last = zookeeperLock(clients, resource, options);
  await last.acquire(Date.now() + options.waitTimeoutMs);
  expect(await last.release()).toBe(true);
  // The orphan: a znode of this instance's session that no sweep knows, first in line.
  const orphan = await plantContender(client, resource);
  expect(await childrenOf(), "the orphan is in place").toEqual([orphan]);

  const other = openLockClients();
  try {
    const theirs = zookeeperLock(other, resource, options);
    const startedAt = Date.now();
    await theirs.acquire(Date.now() + options.waitTimeoutMs);
    const waitedMs = Date.now() - startedAt;
    // The audit runs IDLE_AUDIT_MS[0] after the last buyer ended; without it the orphan stays as
    // long as this session lives, and the other contender is told busy at its 3 s deadline.
    expect(waitedMs).toBeLessThan(IDLE_AUDIT_MS[0] + 1000);
    expect(await childrenOf()).not.toContain(orphan);
    expect(await theirs.release()).toBe(true);
  } finally {
    await other.close();
  }
  expect(await childrenOf()).toEqual([]);
});

it("the idle audit never takes a holder's znode: a buyer that contends again before it runs keeps its lock past every audit's time", async () => {
  const resource = `zk-idle-holder-${randomUUID()}`;
  const options = { ttlMs: 4000, waitTimeoutMs: 1000 };
  const first = zookeeperLock(clients, resource, options);
  await first.acquire(Date.now() + options.waitTimeoutMs);
  expect(await first.release()).toBe(true);
  // Ended, so the audits are due; the next buyer contends before the first of them.
  const holder = zookeeperLock(clients, resource, options);
  await holder.acquire(Date.now() + options.waitTimeoutMs);
  const renew = holder.renew!.bind(holder);
  // An audit asked for while the holder is in flight, and the audits a reconnection schedules,
  // stand aside: neither lists the path while one of the session's contenders is on it.
  const client = await clients.services().zookeeper(zookeeperSessionMs(options.ttlMs));
  expect(await auditIdleNow(client, zookeeperLockPath(resource)), "an audit during the hold lists nothing").toBe(false);
  client.emit("connected");
  expect(await renew(), "the holder's znode after an audit during the hold").toBe(true);
  for (let waited = 0; waited <= IDLE_AUDIT_MS.at(-1)! + 500; waited += 500) {
    await sleep(500);
    // Still held: renew finds the znode (it answers false once the znode is gone).
    expect(await renew(), `the holder's znode after ${waited + 500} ms`).toBe(true);
  }
  expect(await holder.release(), "the release found the znode it removes").toBe(true);
});

it("the idle audit removes only its own session's znodes: another instance's holder keeps its znode through every audit", async () => {
  const resource = `zk-idle-theirs-${randomUUID()}`;
  const options = { ttlMs: SESSION_MS, waitTimeoutMs: 1000 };
  const client = await clients.services().zookeeper(zookeeperSessionMs(options.ttlMs));
  const dir = zookeeperLockPath(resource);
  const childrenOf = () => childrenNow(client, dir);
  // This session contends once and ends: its audits are due.
  const ours = zookeeperLock(clients, resource, options);
  await ours.acquire(Date.now() + options.waitTimeoutMs);
  expect(await ours.release()).toBe(true);
  const other = openLockServices("test-other-holder");
  try {
    const theirs = await plantContender(await other.zookeeper(4000), resource);
    expect(await childrenOf(), "the other instance's holder is in line").toEqual([theirs]);
    // An audit now, and the timers' ones after it: each lists the path, and none takes their znode.
    expect(await auditIdleNow(client, dir), "the audit listed the path").toBe(true);
    expect(await childrenOf()).toEqual([theirs]);
    await sleep(IDLE_AUDIT_MS.at(-1)! + 500); // past every audit the release scheduled
    expect(await childrenOf()).toEqual([theirs]);
  } finally {
    await other.close();
  }
});

it("a path's audits over, the session forgets it: state is kept only for the lock paths in use", async () => {
  const resource = `zk-idle-forget-${randomUUID()}`;
  const options = { ttlMs: SESSION_MS, waitTimeoutMs: 1000 };
  const client = await clients.services().zookeeper(zookeeperSessionMs(options.ttlMs));
  const dir = zookeeperLockPath(resource);
  const lock = zookeeperLock(clients, resource, options);
  await lock.acquire(Date.now() + options.waitTimeoutMs);
  expect(keepsStateFor(client, dir), "kept while its contender is in flight").toBe(true);
  expect(await lock.release()).toBe(true);
  expect(keepsStateFor(client, dir), "kept while its audits are due").toBe(true);
  // Forgotten once the last audit (IDLE_AUDIT_MS.at(-1) after the release) has listed the path.
  await waitFor(() => !keepsStateFor(client, dir), { what: "the session to forget the idle path", timeoutMs: IDLE_AUDIT_MS.at(-1)! + 1500 });
  // And the path locks again as before, from a fresh entry.
  const again = zookeeperLock(clients, resource, options);
  await again.acquire(Date.now() + options.waitTimeoutMs);
  expect(await again.release()).toBe(true);
});

it("the sweep after an uncertain call removes every znode carrying its GUID, and ends at once where the lock's path is gone", async () => {
  const resource = `zk-sweep-${randomUUID()}`;
  const client = await clients.services().zookeeper(SESSION_MS);
  const dir = zookeeperLockPath(resource);
  // One contender's create applied twice (sent again across a reconnect), and another contender's znode.
  const mine = await plantContender(client, resource);
  const guid = /^_c_([0-9a-f]{32})-lock-/.exec(mine)?.[1] ?? "";
  expect(guid, "the planted znode is named as the lock names its own").toHaveLength(32);
  await zkCall<string>((cb) => client.create(`${dir}/_c_${guid}-lock-`, Buffer.alloc(0), zookeeper.CreateMode.EPHEMERAL_SEQUENTIAL, cb));
  const other = await plantContender(client, resource);
  const childrenOf = () => childrenNow(client, dir);
  expect(await childrenOf()).toHaveLength(3);

  await sweepOurs(client, dir, guid);
  expect(await childrenOf(), "only the other contender's znode is left").toEqual([other]);
  await expect(sweepOurs(client, zookeeperLockPath(`zk-never-${randomUUID()}`), guid)).resolves.toBeUndefined();
});
