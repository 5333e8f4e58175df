import { acquireLocal } from "../local-queue";
import type { LockStrategy } from "../types";

/**
 * An in-process async mutex (FIFO, with a wait timeout). Safe with one app instance; unsafe on
 * purpose with two behind nginx: each instance has its own mutex, so two buyers enter at once.
 */
export const createLocal = (): LockStrategy => ({
  name: "local",
  safe: false,
  async withLock(resource, options, critical) {
    const release = await acquireLocal(resource, options.waitTimeoutMs);
    try {
      return await critical({ signal: new AbortController().signal });
    } finally {
      release();
    }
  },
});
