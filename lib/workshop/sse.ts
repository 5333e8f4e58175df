import { watchLive } from "./live";

/** A comment line every HEARTBEAT_MS keeps nginx (proxy_read_timeout) and phones' networks from closing a quiet stream. */
const HEARTBEAT_MS = 15_000;
const encoder = new TextEncoder();
const KEEP_ALIVE = encoder.encode(": keep-alive\n\n");

/**
 * A server-sent event stream of live snapshots: the current one at once, then one per change. An
 * EventSource reconnects by itself (after `retry` ms) when the stream or the instance goes away.
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
      send(encoder.encode("retry: 1000\n\n"));
      // The first event is the current snapshot (the hub's last, or its next broadcast); then one per change.
      const unwatch = watchLive(send, admin);
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
  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store, no-transform",
      // nginx passes each event on at once instead of buffering the response.
      "x-accel-buffering": "no",
      connection: "keep-alive",
    },
  });
}
