import { LockBusyError } from "./types";

/**
 * An in-process FIFO mutex with a wait timeout. It is the whole `local` strategy, and the queue in
 * front of the Redis locks: buyers of one instance line up here, so only the head of the line
 * contends in Redis and the lock passes to the next buyer as soon as it is released.
 */
interface Waiter {
  grant: () => void;
  timer: NodeJS.Timeout;
}

class LocalQueue {
  private held = false;
  private readonly waiters: Waiter[] = [];

  acquire(resource: string, waitTimeoutMs: number): Promise<() => void> {
    if (!this.held) {
      this.held = true;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          clearTimeout(waiter.timer);
          resolve(this.releaser());
        },
        timer: setTimeout(() => {
          const index = this.waiters.indexOf(waiter);
          if (index >= 0) this.waiters.splice(index, 1);
          reject(new LockBusyError(resource, waitTimeoutMs));
        }, waitTimeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  get length(): number {
    return this.waiters.length + (this.held ? 1 : 0);
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiters.shift();
      if (next) next.grant();
      else this.held = false;
    };
  }
}

const queues = new Map<string, LocalQueue>();

/** True while someone in this process's line for `resource` waits behind the current holder. */
export function hasLocalWaiters(resource: string): boolean {
  return (queues.get(resource)?.length ?? 0) > 1;
}

/** Waits in this process's line for `resource`; resolves with the function that lets the next one in. */
export function acquireLocal(resource: string, waitTimeoutMs: number): Promise<() => void> {
  let queue = queues.get(resource);
  if (!queue) {
    queue = new LocalQueue();
    queues.set(resource, queue);
  }
  return queue.acquire(resource, waitTimeoutMs);
}
