import { createZookeeperLock } from "./zookeeper";

/**
 * Lab variant: the same ZooKeeper lock with no fencing token. A holder paused past its session
 * timeout writes its stale stock after the next holder sold: units sold twice — unless the
 * lock-delay knob keeps the next holder waiting longer than the pause.
 */
export const createZookeeperUnfenced = createZookeeperLock("zookeeper-unfenced", { fenced: false, lab: true });
