import type { LockClients } from "../clients";
import { createSetnxLock } from "../setnx-lock";

/**
 * Lab variant, unsafe on purpose: `SETNX` with no expiry at all and `DEL` to unlock. If the
 * holder dies inside the critical section nobody ever deletes the lock: the sale deadlocks.
 */
export const createSetnxNoExpiry = (clients: LockClients) => createSetnxLock(clients, "setnx-no-expiry", false);
