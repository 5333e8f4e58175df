import { NEVER_ABORTED, type LockStrategy } from "../types";

/**
 * No lock at all. Unsafe on purpose: concurrent buyers read the same stock and each write
 * stock − 1, so updates are lost and more orders are taken than there were units (oversell).
 */
export const createNone = (): LockStrategy => ({
  name: "none",
  safe: false,
  withLock: (_resource, _options, critical) => critical({ signal: NEVER_ABORTED }),
});
