import { getAdminLiveSnapshot, getLiveSnapshot, snapshotEvent, watchLive } from "./live";

/** A comment line every HEARTBEAT_MS keeps nginx (proxy_read_timeout) and phones' networks from closing a quiet stream. */
const HEARTBEAT_MS = 15_000;

/**
 * A server-sent event stream of live snapshots: the current one at once, then one per change. An
 * EventSource reconnects by itself (after `retry` ms) when the stream or the instance goes away.
 */
export function liveEventStream(request: Request, admin: boolean): Response {
  const encoder = new TextEncoder();
  let stop = () => {};
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      let open = true;
      const send = (text: string) => {
        if (!open) return;
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          stop();
        }
      };
      // Snapshots of changes that happen while the first one is built wait until it has gone out,
      // so a newer state is never overwritten by an older one.
      let first = true;
      const queued: string[] = [];
      const unwatch = watchLive((event) => (first ? queued.push(event) : send(event)), admin);
      const heartbeat = setInterval(() => send(": keep-alive\n\n"), HEARTBEAT_MS);
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
      send("retry: 1000\n\n");
      try {
        send(snapshotEvent(admin ? await getAdminLiveSnapshot() : await getLiveSnapshot()));
      } catch (error) {
        send(`event: unavailable\ndata: ${JSON.stringify({ code: "unavailable", message: (error as Error).message })}\n\n`);
      }
      first = false;
      const latest = queued.at(-1);
      if (latest) send(latest);
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
