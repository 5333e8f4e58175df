/**
 * Release messages after a Redis node restarts. Waiters of a lock without a local line (every
 * buyer contends in Redis itself) sleep until the holder's release is published; if this process
 * is not subscribed to the lock's channel, they only look again once a second, all at once, and
 * one of them gets the lock per second. ioredis resubscribes after a reconnect only to the
 * channels Redis had confirmed, so a SUBSCRIBE sent while node 1 was down or coming back could be
 * lost (the lock contract's 200 acquirers then hit their 60 s wait timeout). Each round stops
 * node 1 while a waiter arms itself, starts it again, and checks that 200 acquirers of a new lock
 * and then 30 of the lock armed while the node was down all get in.
 */
import { afterAll, afterEach, expect, it } from "vitest";
import { STRATEGY_FACTORIES } from "@/lib/locks/strategies";
import { openLockClients } from "../support/lock-clients";
import { stackControl } from "../support/stack";
import { sleep } from "../support/wait";

const ROUNDS = 10;
const clients = openLockClients();
afterEach(async () => {
  await stackControl("/reset-faults");
});
afterAll(async () => {
  await clients.close();
});

let next = 0;
const freshResource = () => `release-signal:${process.pid}:${++next}`;

it(`${ROUNDS} restarts of node 1: 200 setnx acquirers all get in, and so do those of the lock armed while it was down`, async () => {
  const setnx = STRATEGY_FACTORIES.setnx(clients);
  const options = { ttlMs: 5000, waitTimeoutMs: 15_000 };
  const lock = (resource: string, waitTimeoutMs = options.waitTimeoutMs) =>
    setnx.withLock(resource, { ...options, waitTimeoutMs }, () => sleep(1));
  for (let round = 0; round < ROUNDS; round++) {
    await Promise.all(Array.from({ length: 50 }, () => lock(freshResource())));
    await stackControl("/redis/1/stop");
    // Arms a release wait (and so a SUBSCRIBE) while the node is down; the lock itself is unavailable.
    const armedWhileDown = freshResource();
    await expect(lock(armedWhileDown, 3000)).rejects.toThrow();
    await stackControl("/reset-faults");

    const resource = freshResource();
    const answers = await Promise.allSettled(Array.from({ length: 200 }, () => lock(resource)));
    expect(answers.filter((answer) => answer.status === "rejected"), `round ${round}: acquirers refused`).toEqual([]);
    // The lock whose channel was first armed while the node was down: its waiters are woken too
    // (unwoken, 30 of them would get in one a second and half would be refused at 15 s).
    const later = await Promise.allSettled(Array.from({ length: 30 }, () => lock(armedWhileDown)));
    expect(later.filter((answer) => answer.status === "rejected"), `round ${round}: acquirers of the lock armed while down refused`).toEqual([]);
  }
}, 240_000);
