/**
 * Release messages after a Redis node restarts. Waiters of a lock without a local line (every
 * buyer contends in Redis itself) sleep until the holder's release is published; if this process
 * is not subscribed to the lock's channel, they only look again once a second, all at once, and
 * one of them gets the lock per second. ioredis resubscribes after a reconnect only to the
 * channels Redis had confirmed, so a SUBSCRIBE sent while node 1 was down or coming back could be
 * lost (the lock contract's 200 acquirers then hit their 60 s wait timeout). Each round stops
 * node 1 while a waiter arms itself, starts it again, and checks that 200 acquirers all get in
 * and that every channel this process listens on is subscribed in Redis.
 */
import { afterAll, afterEach, expect, it } from "vitest";
import { STRATEGY_FACTORIES } from "@/lib/locks/strategies";
import { releaseChannel } from "@/lib/locks/release-signal";
import { openLockClients } from "../support/lock-clients";
import { stackControl } from "../support/stack";

const ROUNDS = 10;
const clients = openLockClients();
afterEach(async () => {
  await stackControl("/reset-faults");
});
afterAll(async () => {
  await clients.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let next = 0;
const freshResource = () => `release-signal:${process.pid}:${++next}`;

it(`${ROUNDS} restarts of node 1: 200 setnx acquirers all get in, and every channel armed meanwhile is subscribed`, async () => {
  const setnx = STRATEGY_FACTORIES.setnx(clients);
  const options = { ttlMs: 5000, waitTimeoutMs: 15_000 };
  const armed: string[] = [];
  const lock = (resource: string, waitTimeoutMs = options.waitTimeoutMs) => {
    armed.push(resource);
    return setnx.withLock(resource, { ...options, waitTimeoutMs }, () => sleep(1));
  };
  for (let round = 0; round < ROUNDS; round++) {
    await Promise.all(Array.from({ length: 50 }, () => lock(freshResource())));
    await stackControl("/redis/1/stop");
    // Arms a release wait (and so a SUBSCRIBE) while the node is down; the lock itself is unavailable.
    await expect(lock(freshResource(), 3000)).rejects.toThrow();
    await stackControl("/reset-faults");

    const resource = freshResource();
    const answers = await Promise.allSettled(Array.from({ length: 200 }, () => lock(resource)));
    const refused = answers.filter((answer) => answer.status === "rejected");
    expect(refused, `round ${round}: acquirers refused`).toEqual([]);

    const counts = (await clients.redis().call("PUBSUB", "NUMSUB", ...[...new Set(armed)].map(releaseChannel))) as (string | number)[];
    const silent = counts.flatMap((value, index) => (index % 2 === 1 && Number(value) === 0 ? [counts[index - 1]] : []));
    expect(silent, `round ${round}: channels with no subscriber`).toEqual([]);
  }
}, 240_000);
