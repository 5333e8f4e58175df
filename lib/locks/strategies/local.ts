import { acquireLocal } from "../local-queue";
import { NEVER_ABORTED, type LockStrategy } from "../types";

/**
 * An in-process async mutex (FIFO, with a wait timeout). Safe with one app instance; unsafe on
 * purpose with two behind nginx: each instance has its own mutex, so two buyers enter at once.
 *
 * The next buyer is let in as soon as the holder's write is sent (`writeSent`), not answered: its
 * read travels behind that write on the stock's one connection, so Redis runs it after the write
 * — one round trip per purchase instead of two, the same hand-off the local line gives the Redis
 * locks. Without it this lock, held in the process's own memory, was slower than token-lua.
 */
export const createLocal = (): LockStrategy => ({
  name: "local",
  safe: false,
  async withLock(resource, options, critical) {
    const release = await acquireLocal(resource, options.waitTimeoutMs);
    try {
      return await critical({ signal: NEVER_ABORTED, writeSent: release });
    } finally {
      release();
    }
  },
});
