import type { LockClients } from "./clients";
import { lineLetGo, withLocalLine } from "./local-line";
import type { SharedLock } from "./shared-lock";
import type { LockOptions, LockStrategy, ReadinessCheck } from "./types";

/** How a lock-service strategy is built: fenced or not, lab variant, sequencer check before the write. */
export interface ServiceLockVariant {
  readonly fenced: boolean;
  readonly lab?: boolean;
  readonly sequencer?: boolean;
}

/**
 * A strategy on a lock service that keeps its own lease (a ZooKeeper session, an etcd lease):
 * the TTL knob becomes the lease the service grants (`leaseMs`), this instance's buyers queue
 * locally, and each acquisition is its own (its own fencing token), never handed on.
 */
export function serviceLockStrategy(
  name: string,
  variant: ServiceLockVariant,
  leaseMs: (ttlMs: number) => number,
  lockOf: (clients: LockClients, resource: string, options: LockOptions, variant: ServiceLockVariant) => SharedLock,
  ready: (clients: LockClients, ttlMs: number) => ReadinessCheck,
) {
  return (clients: LockClients): LockStrategy => ({
    name,
    safe: variant.fenced,
    lab: variant.lab,
    localLine: "queue",
    whenLetGo: (resource) => lineLetGo(resource),
    readiness: (ttlMs) => [ready(clients, ttlMs)],
    withLock(resource, options, critical) {
      const leased = { ...options, ttlMs: leaseMs(options.ttlMs) };
      return withLocalLine(resource, leased, lockOf(clients, resource, leased, variant), critical);
    },
  });
}
