// An app instance's listening socket, bound by the stack's supervisor (services/app-supervisor.ts),
// which starts the instance, and handed to it as
// several descriptors of the same socket, which scripts/app-listener.cjs, preloaded into `next
// start`, takes (why several: see that file).

import net from "node:net";
import path from "node:path";
import { ROOT } from "./paths";

/** How the instance's HTTP server listens, which `next start` cannot set (see the file). */
export const LISTENER_PRELOAD = path.join(ROOT, "scripts", "app-listener.cjs");
/**
 * Node's flags for an app instance, before `next start`: the listener preload, and request headers
 * of up to 64 KB (Node's default is 16 KB). nginx admits headers of up to 4 × 8 KB and answers
 * larger ones itself with a JSON 431; with Node's 16 KB, a request between the two (three 7 KB
 * headers) passed nginx and got the instance's bare 431 with an empty body.
 */
export const INSTANCE_NODE_FLAGS = ["--require", LISTENER_PRELOAD, "--max-http-header-size=65536"] as const;
/** The instance's listen backlog (the kernel caps it at net.core.somaxconn). */
export const LISTEN_BACKLOG = 4096;
/**
 * Descriptors of its one listening socket an instance gets, each accepting one connection per turn
 * of its event loop (libuv accepts one per handle per turn): a burst of nginx connections is taken
 * in within a few turns instead of one turn per connection. 64, not 16: at the start of a
 * 1,000-buyer point nginx opens ~500 connections to each instance at once, and under that burst a
 * turn is long; with 16 the accept queues held up to 760 connections for 3–7.5 s and a run could
 * answer hundreds of buyers busy before their handler ran; with 64 they drained in 1–1.5 s
 * (docs/benchmarks.md, "The order insert in batches").
 */
export const ACCEPTORS = 64;

/** Binds the socket; it must be handed over and closed in the same tick (see handOver). */
export function bindAppSocket(host: string, port: number): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen({ host, port, backlog: LISTEN_BACKLOG }, () => resolve(server));
  });
}

/**
 * What the instance is spawned with to take `server`'s socket: its environment and the descriptors
 * to pass as fds 3, 4, …. Spawn in the same tick as this call and close `server` right after: the
 * binding process never polls the socket, so it accepts nothing, and the socket lives exactly as
 * long as the instance.
 */
export function handOver(server: net.Server): { readonly env: Record<string, string>; readonly fds: number[] } {
  const fd = (server as unknown as { _handle: { fd: number } })._handle.fd;
  return {
    env: { LISTEN_BACKLOG: String(LISTEN_BACKLOG), LOCKLAB_LISTEN_FDS: String(ACCEPTORS) },
    fds: Array.from({ length: ACCEPTORS }, () => fd),
  };
}
