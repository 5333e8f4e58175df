import { createHash } from "node:crypto";
import type Redis from "ioredis";

/**
 * A Lua script as a feature owns it: its text, its SHA1, how many of its arguments are keys.
 * `runScript` runs it on whatever client it is given with EVALSHA, and on NOSCRIPT (a server that
 * restarted, or never saw it) with EVAL, which also caches it there — what ioredis' defineCommand
 * does, without defining a command on a connection (defining one on an auto-pipelined connection
 * that already has commands in flight breaks its pipeline: ioredis#1931).
 */
export interface RedisScript {
  readonly lua: string;
  readonly sha: string;
  readonly numberOfKeys: number;
}

export function redisScript(lua: string, numberOfKeys: number): RedisScript {
  return { lua, sha: createHash("sha1").update(lua).digest("hex"), numberOfKeys };
}

export async function runScript<T = unknown>(client: Redis, script: RedisScript, keys: readonly string[], args: readonly (string | number)[] = []): Promise<T> {
  if (keys.length !== script.numberOfKeys) throw new Error(`script expects ${script.numberOfKeys} keys, got ${keys.length}`);
  try {
    return (await client.evalsha(script.sha, script.numberOfKeys, ...keys, ...args)) as T;
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error;
    return (await client.eval(script.lua, script.numberOfKeys, ...keys, ...args)) as T;
  }
}
