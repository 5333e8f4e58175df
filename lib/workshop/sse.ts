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
      // A change announced while the first snapshot is built may have been read before or after
      // it: rather than guess, the snapshot is read again once it has gone out, so a newer state
      // is never overwritten by an older one.
      let first = true;
      let changedMeanwhile = false;
      const unwatch = watchLive((event) => (first ? (changedMeanwhile = true) : send(event)), admin);
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
      const sendSnapshot = async () => {
        try {
          send(snapshotEvent(admin ? await getAdminLiveSnapshot() : await getLiveSnapshot()));
        } catch (error) {
          send(`event: unavailable\ndata: ${JSON.stringify({ code: "unavailable", message: (error as Error).message })}\n\n`);
        }
      };
      await sendSnapshot();
      // Under a steady stream of changes (a load run) this gives up after a few reads and lets
      // the next broadcasts through.
      for (let again = 0; changedMeanwhile && again < 3; again += 1) {
        changedMeanwhile = false;
        await sendSnapshot();
      }
      first = false;
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
