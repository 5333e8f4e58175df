import pino from "pino";
import { getEnv } from "./env";

/**
 * Structured JSON logs (one line per event on stdout; the stack keeps them in .stack/logs/app-N.log).
 * Every purchase logs its request id, which its response carries in `x-request-id`.
 */
const globalForLog = globalThis as unknown as { lockLabLog?: pino.Logger };

export function getLog(): pino.Logger {
  return (globalForLog.lockLabLog ??= pino({
    level: process.env.LOG_LEVEL ?? "info",
    base: { instance: getEnv().APP_INSTANCE },
    timestamp: pino.stdTimeFunctions.isoTime,
  }));
}

/** The request's id: the one nginx gave it (x-request-id), or a new one. */
export function requestIdOf(request: Request): string {
  const given = request.headers.get("x-request-id");
  return given && /^[\w-]{8,64}$/.test(given) ? given : crypto.randomUUID();
}
