import { setImmediate as nextTurn } from "node:timers/promises";
import type Redis from "ioredis";
import { ExecutionError, Redlock } from "@sesamecare-oss/redlock";
// Not re-exported by the package's index; the deep path is the library's own module.
import { ensureCommands } from "@sesamecare-oss/redlock/build/scripts";
import type { LockClients } from "../clients";
import { createPeerStrategy } from "../peer-lock";
import { redlock5Peer } from "./peer-redlock5";

/**
 * Lab variant, unsafe: `@sesamecare-oss/redlock@1.4.0`, the maintained fork of node-redlock 5,
 * over the five Redis nodes and connections `redlock` uses, as its README shows: one Redlock over
 * the clients, `acquire([key], ttl)`, `lock.release()` in `finally`.
 *
 * Its defaults, node-redlock 5's: retryCount 10, retryDelay 200 ms, retryJitter ±100 ms (about
 * 2 s of trying), driftFactor 0.01, db 0. The one setting tuned, per call: retryCount =
 * ceil(waitTimeoutMs / retryDelay), so its tries spend the buyer's wait on average (between about
 * half and 1.5× of it, with the jitter); a wait of 0 is one try. TTL → the lock's `duration`.
 *
 * How it fails: no fencing token and no lease check, so a holder paused past the TTL (or whose
 * majority a clock jump or a restarted node without persistence took away) writes after the next
 * holder: two holders, a unit sold twice. Unlike node-redlock 5 it counts `expiration` from the
 * try that won; like it, it decides a try once a majority has answered, checks no validity left
 * before handing the lock out, and retries a release that finds the lock expired for its default
 * ~2 s before it throws. Its package.json says "UNLICENSED".
 *
 * It defines its scripts on each client (`defineCommand`) at its first acquire, amid the buyers'
 * commands: on these auto-pipelined clients a command defined while a pipeline is pending is
 * missing from it (ioredis#1931, a crash), so the first buyer defines them and every buyer waits
 * one turn of the event loop, until each such pipeline has been sent (as the benchmark's peer does).
 *
 * Busy: its ExecutionError (no majority within the retries); unavailable when fewer than a
 * majority of nodes then answer a PING, or on any other error.
 */
const LIBRARY = "@sesamecare-oss/redlock@1.4.0";

/** The clients the library's scripts are defined on: resolved once the pipelines pending then were sent. */
const defined = new WeakMap<Redis, Promise<unknown>>();

function defineScripts(nodes: readonly Redis[]): Promise<unknown> {
  return Promise.all(nodes.map((node) => {
    let ready = defined.get(node);
    if (!ready) {
      ensureCommands(node);
      defined.set(node, (ready = nextTurn()));
    }
    return ready;
  }));
}

export function createPeerSesamecareRedlock(clients: LockClients) {
  return createPeerStrategy(redlock5Peer(clients, "peer-sesamecare-redlock", LIBRARY, (nodes) => new Redlock([...nodes]),
    (error) => error instanceof ExecutionError, () => defineScripts(clients.redisNodes())));
}
