// A tiny RESP client: PING, CONFIG GET, SHUTDOWN NOSAVE (no redis-cli needed).

import net from "node:net";
import { connectHost, portAnswers } from "./ports";
import { STOP_TIMEOUT_MS, waitFor } from "./processes";

export type RespValue = string | number | null | Error | RespValue[];

export type RedisResult = { reply: RespValue } | { closed: true } | { error: Error };

/** A command as a RESP array of bulk strings. */
export function encodeResp(args: readonly string[]): string {
  let out = `*${args.length}\r\n`;
  for (const arg of args) out += `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`;
  return out;
}

/** Returns [value, nextOffset] or null when buf holds no complete reply yet. */
export function parseResp(buf: Buffer, offset = 0): [RespValue, number] | null {
  const lineEnd = buf.indexOf("\r\n", offset);
  if (lineEnd < 0) return null;
  const type = String.fromCharCode(buf[offset] ?? 0);
  const line = buf.toString("utf8", offset + 1, lineEnd);
  const next = lineEnd + 2;
  switch (type) {
    case "+":
      return [line, next];
    case "-":
      return [new Error(line), next];
    case ":":
      return [Number(line), next];
    case "$": {
      const len = Number(line);
      if (len < 0) return [null, next];
      if (buf.length < next + len + 2) return null;
      return [buf.toString("utf8", next, next + len), next + len + 2];
    }
    case "*": {
      const count = Number(line);
      const items: RespValue[] = [];
      let at = next;
      for (let i = 0; i < count; i++) {
        const parsed = parseResp(buf, at);
        if (!parsed) return null;
        items.push(parsed[0]);
        at = parsed[1];
      }
      return [items, at];
    }
    default:
      return [new Error(`unexpected RESP type ${type}`), buf.length];
  }
}

/** Sends one command. Resolves {reply} | {closed:true} | {error}. Never rejects. */
export function redisCommand(
  host: string,
  port: number,
  args: readonly string[],
  timeoutMs = 1000,
): Promise<RedisResult> {
  return new Promise((resolve) => {
    let buf = Buffer.alloc(0);
    let settled = false;
    const socket = net.connect({ host: connectHost(host), port });
    const finish = (result: RedisResult) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(timeoutMs, () => finish({ error: new Error("timeout") }));
    socket.once("connect", () => socket.write(encodeResp(args)));
    socket.on("data", (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      const parsed = parseResp(buf);
      if (parsed) finish({ reply: parsed[0] });
    });
    socket.once("end", () => finish({ closed: true }));
    socket.once("close", () => finish({ closed: true }));
    socket.once("error", (error) => finish({ error }));
  });
}

/** The reply of one command, or undefined when none came. */
export async function redisReply(host: string, port: number, args: readonly string[], timeoutMs = 1000): Promise<RespValue | undefined> {
  return replyOf(await redisCommand(host, port, args, timeoutMs));
}

function replyOf(result: RedisResult): RespValue | undefined {
  return "reply" in result ? result.reply : undefined;
}

export async function redisPing(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return replyOf(await redisCommand(host, port, ["PING"], timeoutMs)) === "PONG";
}

/** The server's working directory: ours when it is .stack/redis-<n>. */
export async function redisConfigDir(host: string, port: number): Promise<string | null> {
  const reply = replyOf(await redisCommand(host, port, ["CONFIG", "GET", "dir"]));
  const dir = Array.isArray(reply) ? reply[1] : null;
  return typeof dir === "string" ? dir : null;
}

/** SHUTDOWN NOSAVE, then true once the port stops answering. */
export async function redisShutdown(host: string, port: number): Promise<boolean> {
  await redisCommand(host, port, ["SHUTDOWN", "NOSAVE"], 3000);
  return waitFor(async () => !(await portAnswers(host, port, 200)), STOP_TIMEOUT_MS);
}
