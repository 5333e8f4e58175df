/**
 * How the app instances listen (scripts/app-listener.cjs), checked on real sockets in child
 * processes: the backlog as the kernel reports it (ss's Send-Q of a listener is its backlog), and
 * how many connections a busy instance takes in per turn of its event loop.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { describe, expect, it } from "vitest";

const PRELOAD = path.resolve("scripts/app-listener.cjs");
const SOMAXCONN = Number(fs.readFileSync("/proc/sys/net/core/somaxconn", "utf8"));

/** Starts a server the way `code` says in a child (with the preload), and reads its backlog back. */
function backlogOf(code: string, env: Record<string, string> = {}): number {
  const script = `
    const net = require("node:net");
    const { execFileSync } = require("node:child_process");
    const server = net.createServer();
    ${code}
    server.on("listening", () => {
      const port = server.address().port;
      const line = execFileSync("ss", ["-ltnH", "sport = :" + port], { encoding: "utf8" }).trim();
      process.stdout.write(line.split(/\\s+/)[2]);
      server.close();
    });`;
  const out = execFileSync(process.execPath, ["--require", PRELOAD, "-e", script], { encoding: "utf8", env: { ...process.env, ...env } });
  return Number(out);
}

/**
 * A busy instance: an HTTP server started as `next start` starts it (listen(port, host)), whose event
 * loop spends 4 ms of CPU on every turn; each answer says on which turn its connection was accepted.
 */
const BUSY_SERVER = `
  const http = require("node:http");
  let turn = 0;
  (function spin() { const until = Date.now() + 4; while (Date.now() < until); turn++; setImmediate(spin); })();
  const server = http.createServer((req, res) => res.end(String(req.socket.acceptedOnTurn)));
  server.on("connection", (socket) => { socket.acceptedOnTurn = turn; });
  server.listen(0, "127.0.0.1", () => process.stdout.write(JSON.stringify(server.address())));`;

/** The listener's backlog as the kernel reports it. */
const backlogOnPort = (port: number) => Number(execFileSync("ss", ["-ltnH", `sport = :${port}`], { encoding: "utf8" }).trim().split(/\s+/)[2]);

/** What the busy server printed when it listened (its address). */
const listening = (child: ChildProcess) =>
  new Promise<net.AddressInfo>((resolve, reject) => {
    child.stdout!.once("data", (data) => resolve(JSON.parse(String(data))));
    child.once("exit", (code) => reject(new Error(`the server exited (${code}) before listening`)));
  });

/** Opens `connections` connections to `port` at once and returns the turn each was accepted on. */
function burst(port: number, connections: number): Promise<number[]> {
  return Promise.all(
    Array.from({ length: connections }, () =>
      fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(20_000), headers: { connection: "close" } }).then(async (r) => Number(await r.text())),
    ),
  );
}

/**
 * Binds a socket here, hands it to the busy server as `acceptors` descriptors (as the stack
 * supervisor does), opens `connections` connections at once and returns the turn each was accepted on.
 */
async function acceptTurns(acceptors: number, connections: number): Promise<{ turns: number[]; address: net.AddressInfo; port: number; backlog: number }> {
  const listener = net.createServer();
  await new Promise<void>((resolve) => listener.listen({ host: "127.0.0.1", port: 0, backlog: 4096 }, resolve));
  const port = (listener.address() as net.AddressInfo).port;
  const fd = (listener as unknown as { _handle: { fd: number } })._handle.fd;
  const child = spawn(process.execPath, ["--require", PRELOAD, "-e", BUSY_SERVER], {
    env: { ...process.env, LOCKLAB_LISTEN_FDS: String(acceptors) },
    stdio: ["ignore", "pipe", "inherit", ...Array.from({ length: acceptors }, () => fd)],
  });
  listener.close();
  try {
    const address = await listening(child);
    return { address, port, backlog: backlogOnPort(port), turns: await burst(port, connections) };
  } finally {
    child.kill("SIGKILL");
  }
}

const mostOnOneTurn = (turns: number[]) => Math.max(...Object.values(turns.reduce<Record<number, number>>((n, t) => ({ ...n, [t]: (n[t] ?? 0) + 1 }), {})));

describe("the app instances' listener", () => {
  it("raises next start's listen(port, host) to 4,096 (as far as the kernel allows)", () => {
    expect(backlogOf(`server.listen(0, "127.0.0.1");`)).toBe(Math.min(4096, SOMAXCONN));
    expect(backlogOf(`server.listen(0, "127.0.0.1", () => {});`)).toBe(Math.min(4096, SOMAXCONN));
  });

  it("takes LISTEN_BACKLOG, and leaves a call that names its own backlog or options alone", () => {
    expect(backlogOf(`server.listen(0, "127.0.0.1");`, { LISTEN_BACKLOG: "1000" })).toBe(Math.min(1000, SOMAXCONN));
    expect(backlogOf(`server.listen(0, "127.0.0.1", 100);`)).toBe(100);
    expect(backlogOf(`server.listen({ port: 0, host: "127.0.0.1" });`)).toBe(511);
  });

  it("serves a handed-over socket on the port it was bound to, and takes in a burst many connections per turn", async () => {
    const one = await acceptTurns(1, 60);
    // libuv's one accept per turn of the event loop: the burst trickles in, a turn per connection.
    expect(mostOnOneTurn(one.turns)).toBe(1);
    expect(new Set(one.turns).size).toBe(60);

    const sixteen = await acceptTurns(16, 60);
    expect(sixteen.address).toMatchObject({ address: "127.0.0.1", port: sixteen.port });
    expect(sixteen.backlog).toBe(Math.min(4096, SOMAXCONN));
    expect(mostOnOneTurn(sixteen.turns)).toBeGreaterThan(1);
    // Every connection was answered, in far fewer turns than one per connection.
    expect(sixteen.turns).toHaveLength(60);
    expect(new Set(sixteen.turns).size).toBeLessThanOrEqual(20);
  }, 60_000);
});
