import type { LockClients } from "../clients";
import { createTokenLock } from "../token-lock";

/**
 * Lab variant: token-lua plus a watchdog that renews the lock every TTL/3 while the holder works
 * (stopping on release). If a renewal fails, the holder is told and stops before it writes.
 * Work longer than the TTL no longer means two holders; a process pause still can.
 */
export const createTokenWatchdog = (clients: LockClients) =>
  createTokenLock(clients, { name: "token-watchdog", safe: true, lab: true, unlock: "lua", watchdog: true, localLine: true });
