import pino from "pino";
import { getEnv } from "./env";
import type { WithHeaders } from "./i18n/locales";
import { processSingleton } from "./process-singleton";

/**
 * Structured JSON logs (one line per event on stdout; the stack keeps them in .stack/logs/app-N.log).
 * Every purchase logs its request id, which its response carries in `x-request-id`.
 */
export function getLog(): pino.Logger {
  return processSingleton("log", () => pino({
    level: process.env.LOG_LEVEL ?? "info",
    base: { instance: getEnv().APP_INSTANCE },
    timestamp: pino.stdTimeFunctions.isoTime,
  }));
}

/** The request's id: the one nginx gave it (x-request-id), or a new one. */
export function requestIdOf(request: WithHeaders): string {
  const given = request.headers.get("x-request-id");
  return given && /^[\w-]{8,64}$/.test(given) ? given : crypto.randomUUID();
}
