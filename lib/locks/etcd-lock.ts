import type { Etcd3, Lease } from "etcd3";
import type { LockClients } from "./clients";
import { leaseEnd, now } from "./lease";
import { SERVICE_CALL_MS, lockDelayOwed, serviceCall } from "./service-call";
import type { ServiceLockVariant } from "./service-strategy";
import type { SharedLock } from "./shared-lock";
import { LockBusyError, LockUnavailableError, type LockOptions, type ReadinessCheck } from "./types";

/**
 * etcd's own mutex (go.etcd.io/etcd/client/v3/concurrency): each contender puts
 * `<prefix>/<lease id>` under a lease if it does not exist yet; the key with the lowest create
 * revision holds the lock; every other contender watches the key with the next-lower create
 * revision until it is deleted (FIFO, no herd). The lease is renewed every TTL/3 while the holder
 * works; a holder that stops (paused, partitioned) loses key and lock when the lease runs out.
 * The create revision rises with every write to the cluster, so it is the fencing token.
 */
const PREFIX = "locklab/locks/";

/** etcd grants leases in whole seconds, 2 s at least on this stack (1.5 × its 1 s election timeout). */
export function etcdLeaseSeconds(ttlMs: number): number {
  return Math.max(2, Math.ceil(ttlMs / 1000));
}


const call = <T>(what: string, run: () => Promise<T>) => serviceCall(`etcd ${what}`, SERVICE_CALL_MS, run);

/** Resolves once `key` is deleted (or after `maxMs`: the caller looks again). */
async function waitDeleted(etcd: Etcd3, key: string, afterRevision: string, maxMs: number): Promise<void> {
  const creating = etcd.watch().key(key).startRevision(afterRevision).create();
  // A watcher whose creation outlived its call's bound is still created later: cancel it then.
  creating.catch(() => undefined);
  const watcher = await call("watch", () => creating).catch((error: unknown) => {
    void creating.then((late) => late.cancel()).catch(() => undefined);
    throw error;
  });
  try {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, Math.max(1, maxMs));
      watcher.once("delete", () => {
        clearTimeout(timer);
        resolve();
      });
    });
  } finally {
    void watcher.cancel().catch(() => undefined);
  }
}

export function etcdLock(clients: LockClients, resource: string, options: LockOptions, variant: ServiceLockVariant = { fenced: true }): SharedLock {
  const ttlSeconds = etcdLeaseSeconds(options.ttlMs);
  const lockDelayMs = options.lockDelayMs ?? 0;
  const prefix = `${PREFIX}${resource}/`;
  const markKey = `${PREFIX}${resource}.mark`;
  let lease: Lease | undefined;
  let key: string | undefined;
  let revision: number | undefined;

  return {
    kind: `etcd:${ttlSeconds}:${lockDelayMs}:${options.epoch ?? 0}`,
    handOn: false,
    // Unfenced, as the recipe is usually written: the holder trusts its lock until told otherwise.
    ...(!variant.fenced && !variant.sequencer && { checked: false }),
    async acquire(deadline) {
      const etcd = clients.services().etcd();
      let sentAt = now();
      const granted = etcd.lease(ttlSeconds, { autoKeepAlive: false });
      granted.on("lost", () => undefined); // reported through renew(); an unhandled event would throw
      const leaseId = await call("lease grant", () => granted.grant());
      lease = granted;
      const mine = `${prefix}${leaseId}`;
      try {
        const created = await call("put", () =>
          etcd.if(mine, "Create", "==", 0).then(etcd.put(mine).value("").lease(leaseId)).commit(),
        );
        if (!created.succeeded) throw new LockUnavailableError(`etcd: ${mine} already exists`);
        revision = Number(created.header.revision);
        key = mine;
        // A waiter keeps its own lease alive too: a key that expired while waiting would look
        // like a lock nobody holds before it.
        const keepAlive = async () => {
          sentAt = now();
          const alive = await call("keepalive", () => granted.keepaliveOnce());
          if (!(Number(alive.TTL) > 0)) throw new LockUnavailableError(`etcd: the lease of ${mine} expired while it waited`);
        };
        for (let round = 0; ; round++) {
          if (round > 0) await keepAlive();
          const older = await call("range", () =>
            etcd.getAll().prefix(prefix).maxCreateRevision(String(revision! - 1)).sort("Create", "Descend").limit(1).exec(),
          );
          const predecessor = older.kvs[0];
          if (!predecessor) break;
          const left = deadline - Date.now();
          if (left <= 0) throw new LockBusyError(resource, options.waitTimeoutMs);
          await waitDeleted(etcd, predecessor.key.toString("utf8"), String(Number(older.header.revision) + 1), Math.min(left, 1000));
        }
        if (lockDelayMs) {
          const mark = (await call("get", () => etcd.get(markKey).string())) ?? undefined;
          const owed = lockDelayOwed(mark, revision, lockDelayMs);
          // Waited out in steps of a third of the lease, renewing it at each.
          for (const until = Date.now() + owed; Date.now() < until; ) {
            await new Promise((resolve) => setTimeout(resolve, Math.min(until - Date.now(), (ttlSeconds * 1000) / 3)));
            await keepAlive();
          }
          await call("put", () => etcd.put(markKey).value(`held:${revision}`).exec());
        }
      } catch (error) {
        key = undefined;
        void granted.revoke().catch(() => undefined);
        throw error;
      }
      // The lease counts from its grant or the waiter's last keepalive.
      return leaseEnd(sentAt, ttlSeconds * 1000);
    },
    async release() {
      const etcd = clients.services().etcd();
      const held = key;
      const heldLease = lease;
      key = undefined;
      if (!held || revision === undefined) return false;
      const ops = [etcd.delete().key(held), ...(lockDelayMs ? [etcd.put(markKey).value(`released:${revision}`)] : [])];
      const answer = await call("delete", () => etcd.if(held, "Create", "==", String(revision)).then(...ops).commit());
      void heldLease?.revoke().catch(() => undefined);
      return answer.succeeded;
    },
    /** A keepalive the cluster answered with time left: the lease lives a TTL from when it was sent. */
    async renew() {
      const heldLease = lease;
      if (!heldLease || !key) return false;
      const answer = await call("keepalive", () => heldLease.keepaliveOnce());
      return Number(answer.TTL) > 0;
    },
    ...(variant.fenced && { fencingToken: () => revision }),
    ...(variant.sequencer && {
      async sequencerCurrent() {
        const held = key;
        if (!held || revision === undefined) return false;
        const answer = await call("get", () => clients.services().etcd().get(held).exec());
        return Number(answer.kvs[0]?.create_revision ?? 0) === revision;
      },
    }),
  };
}

/** /api/ready: the cluster answers a read. */
export const etcdReady = (clients: LockClients): ReadinessCheck => ["etcd", () => clients.services().etcd().get("locklab/ready").exec()];
