import { createTokenLock } from "./token-lua";

/**
 * Lab variant, unsafe on purpose: a random token per holder, but unlock is GET, compare, then
 * DEL as separate commands. If the lock expires between GET and DEL and another buyer takes it,
 * the DEL deletes their lock and a third buyer walks in beside them.
 */
export const tokenGetDel = createTokenLock({ name: "token-get-del", safe: false, unlock: "get-del" });
