import { createZookeeperLock } from "./zookeeper";

/**
 * Lab variant: the unfenced ZooKeeper lock plus Chubby's sequencer check — just before writing,
 * the holder asks ZooKeeper whether its znode still stands. Catches a holder that paused before
 * the check; a pause between the answer and the write still sells twice.
 */
export const createZookeeperSequencer = createZookeeperLock("zookeeper-sequencer", { fenced: false, lab: true, sequencer: true });
