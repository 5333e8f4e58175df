import type { LockClients } from "../clients";
import { etcdLeaseSeconds, etcdLock } from "../etcd-lock";
import { withLocalLine } from "../local-line";
import type { LockStrategy } from "../types";

/**
 * etcd's concurrency mutex on a three-member cluster: a key per contender under a lease, the
 * lowest create revision holds, each waiter watches the next-lower one. Fails when the lease
 * expires mid-work (the holder paused past it): the next contender holds, and the old holder's
 * late write lands unless the create revision fences it (it does here) or a lock-delay holds
 * the next one back. Leases are whole seconds, 2 s at least. CP: without a quorum there is no
 * lock, only 503s.
 */
export function createEtcdLock(name: string, fenced: boolean, lab?: boolean, sequencer?: boolean) {
  return (clients: LockClients): LockStrategy => ({
    name,
    safe: fenced,
    lab,
    localLine: "queue",
    withLock(resource, options, critical) {
      const lease = { ...options, ttlMs: etcdLeaseSeconds(options.ttlMs) * 1000 };
      return withLocalLine(resource, lease, etcdLock(clients, resource, lease, { fenced, sequencer }), critical);
    },
  });
}

export const createEtcd = createEtcdLock("etcd", true);
