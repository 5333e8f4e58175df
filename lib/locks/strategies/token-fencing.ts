import type { LockClients } from "../clients";
import { createTokenLock } from "../token-lock";

/**
 * Lab variant: token-lua plus a fencing token from a Redis counter with every acquisition. The
 * stock store checks it (lib/purchase/critical-section.ts) and refuses a token lower than the
 * last one it accepted, so a holder that paused past its TTL cannot write stale stock.
 */
export const createTokenFencing = (clients: LockClients) =>
  createTokenLock(clients, { name: "token-fencing", safe: true, lab: true, unlock: "lua", fencing: true, localLine: true });
