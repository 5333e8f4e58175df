import { etcdLeaseSeconds, etcdLock, etcdReady } from "../etcd-lock";
import { serviceLockStrategy, type ServiceLockVariant } from "../service-strategy";

/**
 * etcd's concurrency mutex on a three-member cluster: a key per contender under a lease, the
 * lowest create revision holds, each waiter watches the next-lower one. Fails when the lease
 * expires mid-work (the holder paused past it): the next contender holds, and the old holder's
 * late write lands unless the create revision fences it (it does here) or a lock-delay holds
 * the next one back. Leases are whole seconds, 2 s at least. CP: without a quorum there is no
 * lock, only 503s.
 */
export const createEtcdLock = (name: string, variant: ServiceLockVariant) =>
  serviceLockStrategy(name, variant, (ttlMs) => etcdLeaseSeconds(ttlMs) * 1000, etcdLock, etcdReady);

export const createEtcd = createEtcdLock("etcd", { fenced: true });
