/**
 * The part of redlock@4.2.0's API the benchmark and peer-redlock4 use, installed as `redlock4`
 * beside redlock 5 (the package ships no types). Its promises are Bluebird's; they are awaited
 * like any other.
 */
declare module "redlock4" {
  import type { EventEmitter } from "node:events";
  import type Redis from "ioredis";

  namespace Redlock {
    interface Options {
      /** Share of the TTL allowed for clock drift. @default 0.01 */
      readonly driftFactor?: number;
      /** Attempts after the first; -1 retries forever. @default 10 */
      readonly retryCount?: number;
      /** ms between attempts. @default 200 */
      readonly retryDelay?: number;
      /** ± ms added at random to each delay. @default 100 (the README says 200; the code says 100) */
      readonly retryJitter?: number;
    }
    class Lock {
      readonly resource: string | string[];
      readonly value: string;
      expiration: number;
      unlock(): Promise<void>;
    }
    /** Out of attempts, or a release that did not reach a quorum. */
    class LockError extends Error {
      readonly attempts?: number;
    }
  }
  class Redlock extends EventEmitter {
    constructor(clients: readonly Redis[], options?: Redlock.Options);
    lock(resource: string | string[], ttl: number): Promise<Redlock.Lock>;
  }
  export = Redlock;
}
