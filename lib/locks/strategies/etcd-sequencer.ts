import { createEtcdLock } from "./etcd";

/**
 * Lab variant: the unfenced etcd lock plus Chubby's sequencer check — just before writing, the
 * holder asks etcd whether its key still stands at its create revision. Catches a holder that
 * paused before the check; a pause between the answer and the write still sells twice.
 */
export const createEtcdSequencer = createEtcdLock("etcd-sequencer", { fenced: false, lab: true, sequencer: true });
