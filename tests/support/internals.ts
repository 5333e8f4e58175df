/**
 * What must never reach a public answer: a driver's refusal or timeout, an address with its port,
 * a stack frame. The store says a failure of its servers by its code (lib/http/errors.ts); these
 * belong to the log.
 */
export const INTERNALS = /ECONNREFUSED|ECONNRESET|ETIMEDOUT|\b(?:\d{1,3}\.){3}\d{1,3}:\d+|localhost:\d+|\bat \S+ \(|\.[cm]?[jt]s:\d+/;
