import type { LockClients } from "../clients";
import { DEFAULT_REDLOCK_SETTINGS, createRedlock } from "./redlock";

/**
 * Lab variant: Redlock with a fencing token taken from the stock's own node once the majority is
 * had, and checked by the stock store. When a node's clock jumps or a partition lets a second
 * client win a majority while the first still works, the first one's late write is refused.
 * Kleppmann's point: the majority alone cannot make it safe; the token checked by the store does.
 */
export const createRedlockFenced = (clients: LockClients) =>
  createRedlock(clients, DEFAULT_REDLOCK_SETTINGS, { name: "redlock-fenced", lab: true, fenced: true });
