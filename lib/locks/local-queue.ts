import { LockBusyError } from "./types";

/**
 * An in-process FIFO mutex with a wait timeout. It is the whole `local` strategy, and the queue in
 * front of the Redis locks: buyers of one instance line up here, so only the head of the line
 * contends in Redis and the lock passes to the next buyer as soon as it is released.
 */
interface Waiter {
  readonly resolve: (release: () => void) => void;
  readonly reject: (error: Error) => void;
  readonly waitTimeoutMs: number;
  /** When the wait times out, on the monotonic clock. */
  readonly deadline: number;
}

/** The longest delay a Node timer takes. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Node's timers count whole milliseconds: one may fire this much before a deadline it was set for. */
const TIMER_GRAIN_MS = 1;

class LocalQueue {
  private held = false;
  private readonly waiters: Waiter[] = [];
  /**
   * One timer per queue, not per waiter: it fires at the earliest deadline and turns away everyone
   * whose wait is over. A timer set and cleared for every buyer was the line's costliest step on
   * the path between two holders (docs/benchmarks.md); a full line re-arms it once per timeout.
   */
  private sweep: NodeJS.Timeout | undefined;
  private sweepAt = Infinity;

  constructor(private readonly resource: string) {}

  acquire(waitTimeoutMs: number): Promise<() => void> {
    if (!this.held) {
      this.held = true;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const deadline = performance.now() + waitTimeoutMs;
      this.waiters.push({ resolve, reject, waitTimeoutMs, deadline });
      if (deadline < this.sweepAt) this.armSweep(deadline);
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
      if (next) next.resolve(this.releaser());
      else {
        this.held = false;
        this.disarmSweep();
      }
    };
  }

  private armSweep(at: number): void {
    clearTimeout(this.sweep);
    this.sweepAt = at;
    this.sweep = setTimeout(() => this.turnAwayTimedOut(), Math.min(MAX_TIMER_MS, Math.max(0, at - performance.now())));
  }

  private disarmSweep(): void {
    clearTimeout(this.sweep);
    this.sweep = undefined;
    this.sweepAt = Infinity;
  }

  /** Refuses every waiter whose wait is over (the line keeps its order), then waits for the next deadline. */
  private turnAwayTimedOut(): void {
    this.sweep = undefined;
    this.sweepAt = Infinity;
    const at = performance.now() + TIMER_GRAIN_MS;
    const timedOut: Waiter[] = [];
    let kept = 0;
    for (const waiter of this.waiters) {
      if (waiter.deadline <= at) timedOut.push(waiter);
      else this.waiters[kept++] = waiter;
    }
    this.waiters.length = kept;
    let next = Infinity;
    for (const waiter of this.waiters) next = Math.min(next, waiter.deadline);
    if (next < Infinity) this.armSweep(next);
    for (const waiter of timedOut) waiter.reject(new LockBusyError(this.resource, waiter.waitTimeoutMs));
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
    queue = new LocalQueue(resource);
    queues.set(resource, queue);
  }
  return queue.acquire(waitTimeoutMs);
}
