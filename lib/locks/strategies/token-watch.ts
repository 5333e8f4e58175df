import { createTokenLock } from "./token-lua";

/**
 * Lab variant: token lock whose unlock is WATCH key, GET, then MULTI/DEL/EXEC. The transaction
 * aborts if the lock changed after the GET, so a late unlock never deletes another holder's lock.
 */
export const tokenWatch = createTokenLock({ name: "token-watch", safe: true, unlock: "watch" });
