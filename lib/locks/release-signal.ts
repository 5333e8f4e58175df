import { getSubscriber } from "../redis";

/**
 * Wakes waiters when a lock is released, instead of a fixed-sleep poll. Release scripts PUBLISH
 * on `releaseChannel(resource)`; each process subscribes once per node and channel, and a waiter
 * arms itself *before* its acquire attempt so a release between the attempt and the wait is not
 * missed. Pub/sub is fire-and-forget, so every wait is also bounded by the lock's remaining TTL.
 */
const CHANNEL_PREFIX = "locklab:released:";

export function releaseChannel(resource: string): string {
  return CHANNEL_PREFIX + resource;
}

const listeners = new Map<string, Set<() => void>>();
const subscribed = new Set<string>();

function ensureSubscribed(nodeIndex: number, channel: string): void {
  const key = `${nodeIndex}|${channel}`;
  if (subscribed.has(key)) return;
  subscribed.add(key);
  const subscriber = getSubscriber(nodeIndex);
  if (subscriber.listenerCount("message") === 0) {
    subscriber.on("message", (releasedChannel: string) => {
      const wake = listeners.get(releasedChannel);
      if (wake) for (const listener of [...wake]) listener();
    });
  }
  subscriber.subscribe(channel).catch(() => subscribed.delete(key));
}

export interface ReleaseWait {
  /** Resolves on a release message or after `maxMs`, whichever comes first. */
  wait(maxMs: number): Promise<void>;
  cancel(): void;
}

export function armReleaseWait(resource: string, nodeIndexes: readonly number[] = [0]): ReleaseWait {
  const channel = releaseChannel(resource);
  for (const index of nodeIndexes) ensureSubscribed(index, channel);
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
}
