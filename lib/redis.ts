import Redis from "ioredis";
import { getEnv } from "./env";
import { forgetProcessSingleton, processSingleton } from "./process-singleton";

/**
 * One client per Redis node, created once per process. Node 1 holds the stock, single-node locks,
 * shared config and counters; Redlock uses all of them as independent masters.
 *
 * A down node must fail fast (the buyer gets a 503, not a hung request): one retry per request,
 * a command timeout, and reconnection in the background.
 *
 * Commands are auto-pipelined: every command issued in one turn of the event loop (the config and
 * sale reads of many buyers, one buyer's write and the next buyer's read) leaves in one write to
 * the socket. A socket write costs more CPU than the Redis command itself, so this is what lets an
 * instance keep up under load. Commands still run in the order they were issued on the connection,
 * which the lock's hand-off relies on (HeldLock.writeSent); only MULTI and explicit pipelines skip
 * the queue, and nothing orders them against commands not yet awaited. The subscriber and WATCH
 * connections are left out (their commands are connection state), and so is the serial path's own
 * connection (getSerialConnection).
 *
 * No replayed writes: a command that was sent and not answered when the connection dropped is
 * failed, never sent again after the reconnect (ioredis re-sends by default). Its caller may have
 * been told it failed already (commandTimeout), and a stock write re-sent after another instance
 * sold would land late — the delayed-packet case. A write whose outcome is unknown is settled by
 * its reservation and the reconciler instead (lib/purchase/reconciler.ts).
 */
const CLIENT_OPTIONS = {
  maxRetriesPerRequest: 1,
  autoResendUnfulfilledCommands: false,
  commandTimeout: 2000,
  connectTimeout: 1000,
  enableReadyCheck: true,
  enableAutoPipelining: true,
  retryStrategy: (attempt: number) => Math.min(50 * attempt, 500),
} as const;

interface RedisRegistry {
  nodes: Redis[];
  subscribers: (Redis | undefined)[];
  watch?: Redis;
  serial?: Redis;
}

const SLOT = "redis";

function registry(): RedisRegistry {
  return processSingleton(SLOT, (): RedisRegistry => {
    const nodes = getEnv().REDIS_NODES.map((address, index) => createRedisClient(address, `locklab-${index + 1}`));
    return { nodes, subscribers: nodes.map(() => undefined) };
  });
}

/**
 * A new client of the node at `address` (host:port) with the settings above. The app keeps one
 * per node (below); a test may open its own. Each feature runs its own Lua on it (lib/redis-script.ts).
 */
export function createRedisClient(address: string, connectionName: string): Redis {
  const [host, port] = address.split(":");
  const client = new Redis({ host, port: Number(port), connectionName, ...CLIENT_OPTIONS });
  // Errors surface on the commands that hit them; an unhandled 'error' event would crash the server.
  client.on("error", () => {});
  return client;
}

/** All Redis nodes, in REDIS_NODES order. */
export function getRedisNodes(): Redis[] {
  return registry().nodes;
}

/** Node 1: stock, config, counters, single-node locks. */
export function getRedis(): Redis {
  const primary = registry().nodes[0];
  if (!primary) throw new Error("REDIS_NODES lists no node");
  return primary;
}

/** A connection in subscriber mode for node `index` (Redis needs one apart from commands). */
export function getSubscriber(index: number): Redis {
  const reg = registry();
  const existing = reg.subscribers[index];
  if (existing) return existing;
  const node = reg.nodes[index];
  if (!node) throw new Error(`no Redis node ${index + 1}`);
  const subscriber = node.duplicate({ maxRetriesPerRequest: null, commandTimeout: undefined, enableAutoPipelining: false });
  subscriber.on("error", () => {});
  reg.subscribers[index] = subscriber;
  return subscriber;
}

/** Waits (bounded) until every node's connection is ready; a node that is down is left to reconnect. */
export async function connectRedisNodes(timeoutMs = 3000): Promise<void> {
  await Promise.allSettled(
    getRedisNodes().map((client) =>
      client.status === "ready"
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            const timer = setTimeout(done, timeoutMs);
            function done() {
              clearTimeout(timer);
              client.off("ready", done);
              resolve();
            }
            client.once("ready", done);
          }),
    ),
  );
}

/** A connection of node 1 used only for WATCH/MULTI/EXEC (WATCH belongs to its connection). */
export function getWatchConnection(): Redis {
  const reg = registry();
  if (!reg.watch) {
    reg.watch = getRedis().duplicate({ enableAutoPipelining: false });
    reg.watch.on("error", () => {});
  }
  return reg.watch;
}

/**
 * Node 1's connection for the lock's serial path: the single-node locks' commands (acquire,
 * release, fencing counters) and the locked critical section's reads and writes of the stock.
 * Not auto-pipelined: each command is written to the socket the moment it is issued. On node 1's
 * shared connection a holder's read and write waited behind whatever the instance's other buyers
 * had issued in the same turn, and ioredis sends one auto-pipeline per connection at a time, so a
 * holder's command issued while another batch was on the wire waited for that batch's answers
 * first: measured over HTTP, the lock's hand-off between the two instances took 4.5 ms (p50)
 * there and 2.5 ms here (docs/benchmarks.md). One connection, so a holder's write, the next
 * holder's read and the lock's release run in the order they were issued (HeldLock.writeSent).
 */
export function getSerialConnection(): Redis {
  const reg = registry();
  if (!reg.serial) {
    reg.serial = getRedis().duplicate({ enableAutoPipelining: false, connectionName: "locklab-1-serial" });
    reg.serial.on("error", () => {});
  }
  return reg.serial;
}

/** Whether this process has Redis clients open (not before the first use, nor after closeRedis). */
export function hasOpenRedis(): boolean {
  const reg = processSingleton<RedisRegistry | undefined>(SLOT, () => undefined);
  if (!reg) forgetProcessSingleton(SLOT);
  return reg !== undefined;
}

export async function closeRedis(): Promise<void> {
  const reg = processSingleton<RedisRegistry | undefined>(SLOT, () => undefined);
  forgetProcessSingleton(SLOT);
  if (!reg) return;
  await Promise.allSettled([...reg.nodes, ...reg.subscribers, reg.watch, reg.serial].map((client) => client?.quit()));
}
