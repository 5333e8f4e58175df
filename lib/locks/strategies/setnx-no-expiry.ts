import { createSetnx } from "./setnx";

/**
 * Lab variant, unsafe on purpose: `SETNX` with no expiry at all and `DEL` to unlock. If the
 * holder dies inside the critical section nobody ever deletes the lock: the sale deadlocks.
 */
export const setnxNoExpiry = createSetnx("setnx-no-expiry", false);
