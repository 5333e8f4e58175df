import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import type { LockClients } from "../clients";
import { contend } from "../contend";
import { leaseEnd, now } from "../lease";
import { lineLetGo, withLocalLine } from "../local-line";
import { releaseChannel } from "../release-signal";
import { ACQUIRED, lockScripts } from "../scripts";
import { lockKey } from "../keys";
import { kindOf } from "../shared-lock";
import type { LockStrategy } from "../types";

/**
 * Lab variant: a reentrant token lock, as Redisson does it — the lock is a hash {token: holds}.
 * A holder that calls another locked step on the same resource takes it again (the count goes
 * up) instead of waiting for itself; each release counts down and the last one deletes it.
 */
const holding = new AsyncLocalStorage<Map<string, string>>();

export const createTokenReentrant = (clients: LockClients): LockStrategy => ({
  name: "token-reentrant",
  safe: true,
  lab: true,
  localLine: "queue",
  whenLetGo: (resource) => lineLetGo(resource),
  async withLock(resource, options, critical) {
    const redis = lockScripts(clients.redis());
    const key = lockKey(resource);
    const channel = releaseChannel(resource);
    const heldToken = holding.getStore()?.get(resource);
    if (heldToken) {
      // Already ours in this call chain: hold it once more, skipping the line we are at the head of.
      if ((await redis.acquireReentrantLock(key, heldToken, options.ttlMs)) !== ACQUIRED) {
        throw new Error(`the reentrant lock on ${resource} was lost by its own holder`);
      }
      try {
        return await critical({ signal: new AbortController().signal });
      } finally {
        await redis.releaseReentrantLock(key, heldToken, channel, options.ttlMs).catch(() => 0);
      }
    }
    const token = randomUUID();
    return withLocalLine(resource, options, {
      kind: kindOf("token-reentrant", options),
      handOn: false,
      async acquire(deadline) {
        let sentAt = now();
        await contend({ resource, deadline, waitTimeoutMs: options.waitTimeoutMs, releases: clients.releases }, async () => {
          sentAt = now();
          const answer = await redis.acquireReentrantLock(key, token, options.ttlMs);
          if (answer === ACQUIRED) return { acquired: true };
          return { acquired: false, holderTtlMs: answer < 0 ? Infinity : answer };
        });
        return leaseEnd(sentAt, options.ttlMs);
      },
      release: async () => (await redis.releaseReentrantLock(key, token, channel, options.ttlMs)) === 1,
    }, (held) => holding.run(new Map([...(holding.getStore() ?? []), [resource, token]]), () => critical(held)));
  },});
