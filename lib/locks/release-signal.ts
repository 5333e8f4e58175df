import type { Cluster, Redis } from "ioredis";

/**
 * Wakes waiters when a lock is released, instead of a fixed-sleep poll. Release scripts PUBLISH
 * on `releaseChannel(resource)`; each process subscribes once per node and channel, and a waiter
 * arms itself *before* its acquire attempt so a release between the attempt and the wait is not
 * missed, and the first waiters on a channel wait until Redis has confirmed the subscription.
 * Pub/sub is fire-and-forget, so every wait is also bounded (the lock's remaining TTL, at most a
 * second: see contend).
 */
const CHANNEL_PREFIX = "locklab:released:";
/** The longest the first waiters on a channel wait for Redis to confirm the subscription. */
const SUBSCRIBE_WAIT_MS = 250;
const SETTLED: Promise<void> = Promise.resolve();

export function releaseChannel(resource: string): string {
  return CHANNEL_PREFIX + resource;
}

export interface ReleaseWait {
  /**
   * Resolves once Redis has confirmed the subscription. A waiter must await it before its acquire
   * attempt: a release published while the SUBSCRIBE is still on the wire would be lost, and a
   * waiter on a lock that never expires would then sleep until its deadline.
   */
  readonly ready: Promise<void>;
  /** Resolves on a release message or after `maxMs`, whichever comes first. */
  wait(maxMs: number): Promise<void>;
  cancel(): void;
}

export interface ReleaseSignals {
  /** Listens for a release of `resource` on the given nodes (node 1 by default) from now on. */
  armReleaseWait(resource: string, nodeIndexes?: readonly number[]): ReleaseWait;
}

/**
 * Release signals over the subscriber connections `subscriberFor(nodeIndex)` returns (a Redis
 * Cluster client subscribes on a connection of its own, and a PUBLISH on any node reaches it).
 */
export function createReleaseSignals(subscriberFor: (nodeIndex: number) => Redis | Cluster): ReleaseSignals {
  const listeners = new Map<string, Set<() => void>>();
  // Per connection: a reconnecting client resubscribes by itself, a new client starts empty.
  // The value is what a waiter awaits before its first attempt: the SUBSCRIBE's answer while one is
  // awaited, then nothing.
  const subscribed = new WeakMap<Redis | Cluster, Map<string, Promise<void>>>();

  function ensureSubscribed(nodeIndex: number, channel: string): Promise<void> {
    const subscriber = subscriberFor(nodeIndex);
    let channels = subscribed.get(subscriber);
    if (!channels) {
      channels = new Map();
      subscribed.set(subscriber, channels);
      subscriber.on("message", (releasedChannel: string) => {
        const wake = listeners.get(releasedChannel);
        if (wake) for (const listener of [...wake]) listener();
      });
      // ioredis resubscribes on reconnect only to the channels Redis had confirmed. A SUBSCRIBE
      // written while the connection was going down again (a node restarting) is dropped and its
      // promise never settles, so the channel would stay silent and every waiter on it fall back
      // to a look per second. Each time the connection is ready, every channel this process
      // listens on is subscribed again; Redis ignores the ones it has.
      const listened = channels;
      subscriber.on("ready", () => {
        if (listened.size > 0) subscriber.subscribe(...listened.keys()).catch(() => undefined);
      });
    }
    const known = channels.get(channel);
    if (known) return known;
    // A node that is down never answers (its subscriber queues the command until it is back), so
    // the answer is awaited for SUBSCRIBE_WAIT_MS at most, and later waiters do not wait for it:
    // contend's bounded wait covers a release message missed meanwhile.
    let timer: NodeJS.Timeout | undefined;
    const answered = subscriber.subscribe(channel).then(
      () => undefined,
      () => void channels.delete(channel), // forgotten, so the next waiter subscribes again
    );
    const settled = Promise.race([answered, new Promise<void>((resolve) => (timer = setTimeout(resolve, SUBSCRIBE_WAIT_MS)))]);
    channels.set(channel, settled);
    void settled.then(() => {
      clearTimeout(timer);
      if (channels.get(channel) === settled) channels.set(channel, SETTLED);
    });
    return settled;
  }

  return {
    armReleaseWait(resource, nodeIndexes = [0]) {
      const channel = releaseChannel(resource);
      const ready = Promise.all(nodeIndexes.map((index) => ensureSubscribed(index, channel))).then(() => undefined);
      let fired = false;
      let wake: (() => void) | undefined;
      const listener = () => {
        fired = true;
        wake?.();
      };
      let set = listeners.get(channel);
      if (!set) {
        set = new Set();
        listeners.set(channel, set);
      }
      set.add(listener);
      const cancel = () => set.delete(listener);
      return {
        ready,
        cancel,
        wait(maxMs) {
          if (fired || maxMs <= 0) {
            cancel();
            return Promise.resolve();
          }
          return new Promise((resolve) => {
            const timer = setTimeout(done, maxMs);
            function done() {
              clearTimeout(timer);
              cancel();
              resolve();
            }
            wake = done;
          });
        },
      };
    },
  };
}
