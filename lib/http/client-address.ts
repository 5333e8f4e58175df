import type { WithHeaders } from "../i18n/locales";

/**
 * Who is asking, as nginx saw it. The app instances listen on 127.0.0.1 only and nginx sets
 * `X-Real-IP` to the connection's own address on every request it passes on (a client cannot send
 * its own), so a request without it came straight to an instance from this machine.
 */
export function clientAddress(request: WithHeaders): string {
  return request.headers.get("x-real-ip")?.trim() || "127.0.0.1";
}

/**
 * The machine itself: 127.0.0.1 and ::1 only, exactly the addresses nginx exempts from its per-address
 * limits ($locklab_limited). The rest of 127/8 is a phone like any other: the hall benchmark plays
 * its phones from 127.1.x.y, and they must join and keep the one-person rule as phones do.
 */
const THIS_MACHINE = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1"]);

/** True for this machine: load runs, the lab, the tests and the instructor's own browser. */
export function isFromThisMachine(request: WithHeaders): boolean {
  return THIS_MACHINE.has(clientAddress(request));
}
