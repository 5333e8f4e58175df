import { createHash } from "node:crypto";
import type { Cluster, Redis } from "ioredis";

/**
 * A Lua script as a feature owns it: its text, its SHA1, how many of its arguments are keys, run by
 * `runScript` on whatever client it is given.
 *
 * Order is the point. Commands run in the order they were issued on a connection, and the lock's
 * hand-off relies on it (HeldLock.writeSent: the next holder's read travels behind the previous
 * holder's write). EVALSHA of a script the server has not seen fails with NOSCRIPT, and an EVAL
 * sent after that lands behind whatever was issued meanwhile: a write would overtake nothing, but a
 * read would overtake the write — a unit sold twice (measured: one in the first two orders of a
 * fresh stack). So, as ioredis' own scripts do per socket, a script's first use on a connection is
 * sent as EVAL (which caches it there, in order) and later uses as EVALSHA. Only a connection that
 * was replaced between issuing and sending (a reconnect) can still answer NOSCRIPT; the script is
 * then sent again as EVAL. No command is defined on the client (defining one on an auto-pipelined
 * connection with commands in flight breaks its pipeline: ioredis#1931).
 *
 * A Redis Cluster client has no one connection: it picks a node's per key slot, and another after a
 * MOVED or a failover, so there is no socket to remember a script on before the command is sent.
 * On it every run is an EVAL. That is still one round trip: the node caches the script by its SHA1
 * on the first EVAL and finds it again by hashing the text, so the cost is the script's few
 * hundred bytes on the wire.
 */
export interface RedisScript {
  readonly lua: string;
  readonly sha: string;
  readonly numberOfKeys: number;
}

export function redisScript(lua: string, numberOfKeys: number): RedisScript {
  return { lua, sha: createHash("sha1").update(lua).digest("hex"), numberOfKeys };
}

/** The scripts sent on each connection (a socket lives as long as its connection). */
const sentOn = new WeakMap<object, Set<string>>();

export async function runScript<T = unknown>(client: Redis | Cluster, script: RedisScript, keys: readonly string[], args: readonly (string | number)[] = []): Promise<T> {
  if (keys.length !== script.numberOfKeys) throw new Error(`script expects ${script.numberOfKeys} keys, got ${keys.length}`);
  if (client.isCluster) return client.eval(script.lua, script.numberOfKeys, ...keys, ...args) as Promise<T>;
  const socket = (client as unknown as { stream?: object }).stream;
  let sent = socket ? sentOn.get(socket) : undefined;
  if (socket && !sent) sentOn.set(socket, (sent = new Set()));
  const known = sent?.has(script.sha) ?? false;
  sent?.add(script.sha);
  const evalFull = () => client.eval(script.lua, script.numberOfKeys, ...keys, ...args) as Promise<T>;
  if (!known) return evalFull();
  try {
    return (await client.evalsha(script.sha, script.numberOfKeys, ...keys, ...args)) as T;
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error;
    sent?.delete(script.sha);
    return evalFull();
  }
}
