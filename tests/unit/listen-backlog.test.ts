/**
 * The app instances' listen backlog (scripts/listen-backlog.cjs): checked on a real listening
 * socket in a child process, as the kernel reports it (ss's Send-Q of a listener is its backlog).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const PRELOAD = path.resolve("scripts/listen-backlog.cjs");
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

describe("the app instances' listen backlog", () => {
  it("raises next start's listen(port, host) to 4,096 (as far as the kernel allows)", () => {
    expect(backlogOf(`server.listen(0, "127.0.0.1");`)).toBe(Math.min(4096, SOMAXCONN));
    expect(backlogOf(`server.listen(0, "127.0.0.1", () => {});`)).toBe(Math.min(4096, SOMAXCONN));
  });

  it("takes LISTEN_BACKLOG, and leaves a call that names its own backlog or options alone", () => {
    expect(backlogOf(`server.listen(0, "127.0.0.1");`, { LISTEN_BACKLOG: "1000" })).toBe(Math.min(1000, SOMAXCONN));
    expect(backlogOf(`server.listen(0, "127.0.0.1", 100);`)).toBe(100);
    expect(backlogOf(`server.listen({ port: 0, host: "127.0.0.1" });`)).toBe(511);
  });
});
