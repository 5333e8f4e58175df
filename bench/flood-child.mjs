// The flooding phone of bench/flood.ts, in a process of its own: `node bench/flood-child.mjs <url>
// <from> <connections> <seconds>`. It loops GET / and GET /api/sale on `connections` kept-alive
// connections from the address `from`, and prints how it was answered as JSON. Run at the lowest
// priority (nice 19): on a laptop the flood's own work is done by the flooding phone, not by the
// machine that serves the store, and on a 2-core bench machine it must not steal the buyers' CPU.
import http from "node:http";

const [url, from, connections, seconds] = process.argv.slice(2);
const target = new URL(url);
const agent = new http.Agent({ keepAlive: true, maxSockets: Number(connections) });
const until = Date.now() + Number(seconds) * 1000;
const statuses = {};

function get(path) {
  return new Promise((resolve) => {
    const req = http.request({ host: target.hostname, port: target.port, path, localAddress: from, agent, timeout: 10_000 }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", () => resolve(0));
    req.end();
  });
}

await Promise.all(Array.from({ length: Number(connections) }, async (_, i) => {
  while (Date.now() < until) {
    const status = await get(i % 2 ? "/api/sale" : "/");
    statuses[status] = (statuses[status] ?? 0) + 1;
  }
}));
agent.destroy();
console.log(JSON.stringify(statuses));
