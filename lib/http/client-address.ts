/**
 * Who is asking, as nginx saw it. The app instances listen on 127.0.0.1 only and nginx sets
 * `X-Real-IP` to the connection's own address on every request it passes on (a client cannot send
 * its own), so a request without it came straight to an instance from this machine.
 */
export function clientAddress(request: Request): string {
  return request.headers.get("x-real-ip")?.trim() || "127.0.0.1";
}

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3})$/;

/** True for loopback: load runs, the lab, the tests and the instructor's own browser. */
export function isFromThisMachine(request: Request): boolean {
  return LOOPBACK.test(clientAddress(request));
}
