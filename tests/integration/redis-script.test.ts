/**
 * The ground floor's script helper keeps a connection's order: a command issued after a script's
 * first use on a connection runs after it. The lock's hand-off depends on it (the next holder's
 * read travels behind the last holder's write); an EVALSHA that came back NOSCRIPT and was sent
 * again as EVAL would land behind that read.
 */
import { randomUUID } from "node:crypto";
import { afterAll, expect, it } from "vitest";
import { getEnv } from "@/lib/env";
import { createRedisClient } from "@/lib/redis";
import { redisScript, runScript } from "@/lib/redis-script";

// Redis node 5 (Redlock's fifth vote only): its script cache is flushed here, nobody else's.
const client = createRedisClient(getEnv().REDIS_NODES[4]!, "locklab-test-scripts");
afterAll(() => client.quit());

it("a read issued right after a script's first use on a connection sees what the script wrote", async () => {
  await client.script("FLUSH");
  const key = `locklab:test:script-order:${randomUUID()}`;
  for (let round = 0; round < 20; round++) {
    // A script the server has never seen (its text differs each round), used for the first time here.
    const write = redisScript(`-- round ${round} ${randomUUID()}\nredis.call('SET', KEYS[1], ARGV[1]) return 1`, 1);
    const writing = runScript(client, write, [key], [`round-${round}`]);
    const read = client.get(key); // issued in the same turn, after the write
    expect(await read).toBe(`round-${round}`);
    expect(await writing).toBe(1);
    // And its later uses (EVALSHA) keep the order too.
    const again = runScript(client, write, [key], [`round-${round}-again`]);
    expect(await client.get(key)).toBe(`round-${round}-again`);
    await again;
  }
  await client.del(key);
});

it("after the server forgot its scripts (SCRIPT FLUSH), a script still runs", async () => {
  const script = redisScript("return 42", 0);
  expect(await runScript(client, script, [])).toBe(42);
  await client.script("FLUSH");
  expect(await runScript(client, script, [])).toBe(42);
});
