import type { ServerResponse } from "node:http";
import { DEFAULT_LOCALE, localeOfRequest, type Locale } from "../i18n/locales";
import { watchLive } from "./live";

/** A comment line every HEARTBEAT_MS keeps nginx (proxy_read_timeout) and phones' networks from closing a quiet stream. */
const HEARTBEAT_MS = 15_000;
const encoder = new TextEncoder();
const KEEP_ALIVE = encoder.encode(": keep-alive\n\n");
/** An EventSource reconnects by itself after this long when the stream or the instance goes away. */
const RETRY = encoder.encode("retry: 1000\n\n");
const LIVE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-store, no-transform",
  // nginx passes each event on at once instead of buffering the response.
  "x-accel-buffering": "no",
  connection: "keep-alive",
} as const;

/**
 * A server-sent event stream of live snapshots as a web Response (the projector's, an App Router
 * route): the current one at once, then one per change.
 */
export function liveEventStream(request: Request, admin: boolean): Response {
  let stop = () => {};
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      let open = true;
      const send = (bytes: Uint8Array) => {
        if (!open) return;
        try {
          controller.enqueue(bytes);
        } catch {
          stop();
        }
      };
      send(RETRY);
      // The first event is the current snapshot (the hub's last, or its next broadcast); then one per change.
      const unwatch = watchLive(send, admin, localeOfRequest(request));
      const heartbeat = setInterval(() => send(KEEP_ALIVE), HEARTBEAT_MS);
      stop = () => {
        if (!open) return;
        open = false;
        unwatch();
        clearInterval(heartbeat);
        try {
          controller.close();
        } catch {
          // already closed by the client going away
        }
      };
      request.signal.addEventListener("abort", stop);
      if (request.signal.aborted) stop();
    },
    cancel() {
      stop();
    },
  });
  return new Response(stream, { headers: LIVE_HEADERS });
}

/**
 * The same stream written straight to Node's response (the phones' /api/live, a Pages API route:
 * a hall holds a thousand of them, and each broadcast is one socket write per phone instead of a
 * trip through web streams). Every event is a whole snapshot, so a phone whose connection cannot
 * take more yet is sent only the latest once it drains, not a backlog of the ones it missed.
 */
export function writeLiveEvents(res: ServerResponse, admin: boolean, locale: Locale = DEFAULT_LOCALE): void {
  res.writeHead(200, LIVE_HEADERS);
  res.write(RETRY);
  let latest: Uint8Array | undefined;
  const send = (bytes: Uint8Array) => {
    if (res.writableEnded || res.destroyed) return;
    if (res.writableNeedDrain) latest = bytes;
    else res.write(bytes);
  };
  res.on("drain", () => {
    const next = latest;
    latest = undefined;
    if (next) send(next);
  });
  const unwatch = watchLive(send, admin, locale);
  // A heartbeat is for a quiet stream: one that waits to drain has news queued already.
  const heartbeat = setInterval(() => res.writableNeedDrain || send(KEEP_ALIVE), HEARTBEAT_MS);
  res.once("close", () => {
    unwatch();
    clearInterval(heartbeat);
  });
}
