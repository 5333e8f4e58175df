import path from "node:path";
import zookeeper from "node-zookeeper-client";
import type { LockClients } from "./clients";
import { leaseEnd, now } from "./lease";
import { SERVICE_CALL_MS, lockDelayOwed, serviceCall } from "./service-call";
import type { ServiceLockVariant } from "./service-strategy";
import type { SharedLock } from "./shared-lock";
import { LockBusyError, LockUnavailableError, type LockOptions } from "./types";

/**
 * Curator's lock recipe on ZooKeeper: each contender creates an ephemeral sequential znode under
 * the lock's path; the lowest sequence holds the lock; every other contender watches only the
 * znode just before its own (FIFO, no herd). The znode lives as long as its client's session,
 * which the client keeps alive with heartbeats; the session timeout is the lease. Its sequence
 * number rises with every contender, so it is the fencing token the stock store checks.
 */
const ROOT = "/locklab/locks";

/** ZooKeeper grants sessions of 2 to 20 ticks (the stack's tickTime is 200 ms). */
export const ZOOKEEPER_SESSION_MS = { min: 400, max: 4000 } as const;

export function zookeeperSessionMs(ttlMs: number): number {
  return Math.min(ZOOKEEPER_SESSION_MS.max, Math.max(ZOOKEEPER_SESSION_MS.min, ttlMs));
}

type ZkError = Error | zookeeper.Exception;
type Callback<T> = (error: ZkError | null | undefined, result: T) => void;

const messageOf = (error: ZkError) => (error instanceof Error ? error.message : error.toString());

/** One ZooKeeper call as a promise, bounded (a client without a quorum queues requests). */
function zk<T>(what: string, timeoutMs: number, call: (callback: Callback<T>) => void): Promise<T> {
  return serviceCall(`zookeeper ${what}`, timeoutMs, () => new Promise<T>((resolve, reject) => call((error, result) => (error ? reject(error instanceof Error ? error : Object.assign(new Error(messageOf(error)), { cause: error })) : resolve(result)))));
}

/** Whether `error`, or an error it was caused by, is ZooKeeper's exception `code`. */
function isCode(error: unknown, code: number): boolean {
  for (let e = error as { getCode?: () => number; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (typeof e.getCode === "function" && e.getCode() === code) return true;
  }
  return false;
}


export function zookeeperLock(clients: LockClients, resource: string, options: LockOptions, variant: ServiceLockVariant = { fenced: true }): SharedLock {
  const sessionMs = zookeeperSessionMs(options.ttlMs);
  const lockDelayMs = options.lockDelayMs ?? 0;
  const dir = `${ROOT}/${encodeURIComponent(resource)}`;
  let client: zookeeper.Client | undefined;
  let node: string | undefined;
  let sequence: number | undefined;

  async function waitForPredecessor(c: zookeeper.Client, predecessor: string, maxMs: number): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, Math.max(1, maxMs));
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      c.exists(`${dir}/${predecessor}`, () => done(), (error, stat) => {
        if (error) {
          clearTimeout(timer);
          reject(new LockUnavailableError(`zookeeper exists: ${messageOf(error)}`, { cause: error }));
        } else if (!stat) done();
      });
    });
  }

  return {
    kind: `zookeeper:${sessionMs}:${lockDelayMs}:${options.epoch ?? 0}`,
    handOn: false,
    async acquire(deadline) {
      const c = await serviceCall("zookeeper connect", SERVICE_CALL_MS, () => clients.services().zookeeper(sessionMs));
      client = c;
      await zk<string>("mkdirp", SERVICE_CALL_MS, (cb) => c.mkdirp(dir, cb));
      let heardAt = now();
      node = await zk<string>("create", SERVICE_CALL_MS, (cb) => c.create(`${dir}/lock-`, Buffer.alloc(0), zookeeper.CreateMode.EPHEMERAL_SEQUENTIAL, cb));
      const mine = path.posix.basename(node);
      sequence = Number(mine.slice("lock-".length));
      try {
        for (;;) {
          heardAt = now();
          const children = (await zk<string[]>("getChildren", SERVICE_CALL_MS, (cb) => c.getChildren(dir, cb))).filter((n) => n.startsWith("lock-")).sort();
          const at = children.indexOf(mine);
          if (at < 0) throw new LockUnavailableError(`zookeeper: our znode ${node} is gone (the session expired)`);
          if (at === 0) break;
          const left = deadline - Date.now();
          if (left <= 0) throw new LockBusyError(resource, options.waitTimeoutMs);
          await waitForPredecessor(c, children[at - 1]!, Math.min(left, 1000));
        }
        if (lockDelayMs) {
          const [mark] = await zk<[Buffer | undefined]>("getData", SERVICE_CALL_MS, (cb) => c.getData(dir, (e, data) => cb(e, [data])));
          const owed = lockDelayOwed(mark?.toString("utf8"), sequence, lockDelayMs);
          if (owed) await new Promise((resolve) => setTimeout(resolve, owed));
          heardAt = now();
          await zk("setData", SERVICE_CALL_MS, (cb) => c.setData(dir, Buffer.from(`held:${sequence}`), cb));
        }
      } catch (error) {
        const stale = node;
        node = undefined;
        c.remove(stale, () => {});
        throw error;
      }
      // The server heard from this session no earlier than our last answered call: the session,
      // and the znode with it, lives at least a session timeout from then.
      return leaseEnd(heardAt, sessionMs);
    },
    async release() {
      const c = client;
      const held = node;
      if (!c || !held) return false;
      node = undefined;
      if (lockDelayMs) await zk("setData", SERVICE_CALL_MS, (cb) => c.setData(dir, Buffer.from(`released:${sequence}`), cb)).catch(() => undefined);
      try {
        await zk("remove", SERVICE_CALL_MS, (cb) => c.remove(held, -1, (error) => cb(error, undefined)));
        return true;
      } catch (error) {
        if (isCode(error, zookeeper.Exception.NO_NODE)) return false;
        throw error;
      }
    },
    /** Heard from the server with our znode still there: the session lives a timeout from the call. */
    async renew() {
      const c = client;
      const held = node;
      if (!c || !held) return false;
      const stat = await zk<zookeeper.Stat | undefined>("exists", SERVICE_CALL_MS, (cb) => c.exists(held, cb));
      return Boolean(stat);
    },
    ...(variant.fenced && { fencingToken: () => sequence }),
    ...(variant.sequencer && {
      async sequencerCurrent() {
        const c = client;
        const held = node;
        if (!c || !held) return false;
        return Boolean(await zk<zookeeper.Stat | undefined>("exists", SERVICE_CALL_MS, (cb) => c.exists(held, cb)));
      },
    }),
  };
}
