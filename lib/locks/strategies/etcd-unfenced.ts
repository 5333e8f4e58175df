import { createEtcdLock } from "./etcd";

/**
 * Lab variant: the same etcd lock with no fencing token. A holder paused past its lease writes
 * its stale stock after the next holder sold: units sold twice — unless the lock-delay knob
 * keeps the next holder waiting longer than the pause.
 */
export const createEtcdUnfenced = createEtcdLock("etcd-unfenced", { fenced: false, lab: true });
