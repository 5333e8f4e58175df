// A client process for the network tests: spawned with a group id of its own (as the stack spawns
// an app instance), it holds Redis connections and runs what the test sends, one JSON line each on
// stdin, answering one JSON line each on stdout. Connections never reconnect (a reconnect would
// hide whether a cut closed the connection), and every command has its own timeout.
//
//   {"id":1,"op":"connect","conn":"a","port":17201,"timeoutMs":800}
//   {"id":2,"op":"call","conn":"a","args":["SET","k","v"]}
//   {"id":3,"op":"subscribe","conn":"sub","channel":"news"}
// answers {"id":1,"ok":true,"reply":…,"ms":…} or {"id":1,"ok":false,"error":"…","ms":…};
// events {"event":"message"|"close"|"error","conn":"a",…} come when they happen.

"use strict";
const path = require("node:path");
const readline = require("node:readline");
const Redis = require(path.join(__dirname, "..", "..", "..", "node_modules", "ioredis"));

const connections = new Map();
const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);

async function run(message) {
  switch (message.op) {
    case "connect": {
      const redis = new Redis({
        host: "127.0.0.1",
        port: message.port,
        lazyConnect: true,
        commandTimeout: message.timeoutMs,
        connectTimeout: message.timeoutMs,
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
      });
      redis.on("close", () => send({ event: "close", conn: message.conn }));
      redis.on("error", (err) => send({ event: "error", conn: message.conn, message: err.message }));
      redis.on("message", (channel, text) => send({ event: "message", conn: message.conn, channel, text, at: Date.now() }));
      connections.set(message.conn, redis);
      await redis.connect();
      return "connected";
    }
    case "call":
      return connections.get(message.conn).call(...message.args);
    case "subscribe":
      return connections.get(message.conn).subscribe(message.channel);
    default:
      throw new Error(`unknown op ${message.op}`);
  }
}

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line);
  const t0 = Date.now();
  run(message).then(
    (reply) => send({ id: message.id, ok: true, reply, ms: Date.now() - t0 }),
    (err) => send({ id: message.id, ok: false, error: err.message, ms: Date.now() - t0 }),
  );
});
// stdin closed: the test is over (or died); leave with it.
process.stdin.on("end", () => process.exit(0));
send({ event: "ready", gid: process.getgid(), pid: process.pid });
