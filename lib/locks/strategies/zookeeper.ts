import { serviceLockStrategy, type ServiceLockVariant } from "../service-strategy";
import { zookeeperLock, zookeeperReady, zookeeperSessionMs } from "../zookeeper-lock";

/**
 * Curator's lock on a three-member ZooKeeper ensemble: an ephemeral sequential znode per
 * contender, each watching only its predecessor. Fails when the holder's session expires while
 * it is paused (GC, SIGSTOP): its znode goes, the next contender holds, and the paused holder's
 * late write lands unless the znode's sequence number fences it (it does here) or a lock-delay
 * holds the next one back. The TTL knob is the session timeout (400 ms to 4 s). CP: without a
 * quorum there is no lock, only 503s.
 */
export const createZookeeperLock = (name: string, variant: ServiceLockVariant) =>
  serviceLockStrategy(name, variant, zookeeperSessionMs, zookeeperLock, zookeeperReady);

export const createZookeeper = createZookeeperLock("zookeeper", { fenced: true });
