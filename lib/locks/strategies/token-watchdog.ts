import { createTokenLock } from "./token-lua";

/**
 * Lab variant: token-lua plus a watchdog that renews the lock every TTL/3 while the holder works
 * (stopping on release). If a renewal fails, the holder is told and stops before it writes.
 * Work longer than the TTL no longer means two holders; a process pause still can.
 */
export const tokenWatchdog = createTokenLock({ name: "token-watchdog", safe: true, unlock: "lua", watchdog: true });
