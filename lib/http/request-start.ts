import type { WithHeaders } from "../i18n/locales";

/**
 * How long a request waited before its handler ran: nginx stamps every proxied request with
 * `X-Request-Start: t=<seconds.millis>` (its `$msec` when it read the request), and the handler
 * subtracts that from its own clock (the same machine's). Under a
 * burst the wait is real — the instance's accept queue and the requests parsed ahead of this one —
 * and a buyer's wait timeout covers it: a purchase that already waited its whole timeout is
 * answered busy before it touches the stock (lib/purchase/purchase.ts).
 *
 * Without the header (a request straight to an instance) or with a stamp that cannot be this
 * request's (unparsable, in the future beyond clock jitter, older than a minute) the wait is 0.
 */
const STAMP = /^t=(\d{9,11})(?:\.(\d{1,3}))?$/;
const MAX_PLAUSIBLE_MS = 60_000;
const JITTER_MS = 50;

export function queuedMsOf(request: WithHeaders, now: number = Date.now()): number {
  const match = STAMP.exec(request.headers.get("x-request-start")?.trim() ?? "");
  if (!match) return 0;
  const stampedAt = Number(match[1]) * 1000 + Number((match[2] ?? "0").padEnd(3, "0"));
  const queued = now - stampedAt;
  if (queued < -JITTER_MS || queued > MAX_PLAUSIBLE_MS) return 0;
  return Math.max(0, queued);
}
