import type { LockClients } from "../clients";
import { createSetnxLock } from "../setnx-lock";

/**
 * The naive lock, unsafe on purpose: `SETNX` then `PEXPIRE` as two commands (a crash between them
 * leaves a lock that never expires: deadlock), and a plain `DEL` to unlock (after the TTL ran out
 * mid-work, it deletes the next buyer's lock: oversell). Every buyer contends in Redis itself.
 */
export const createSetnx = (clients: LockClients) => createSetnxLock(clients, "setnx", true);
