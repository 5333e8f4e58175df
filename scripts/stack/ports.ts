import { spawnSync } from "node:child_process";
import http from "node:http";
import net from "node:net";
import { StackError } from "./errors";

/** Addresses the stack can start a server on; anything else must already be running. */
export const LOCAL_HOSTS: ReadonlySet<string> = new Set(["127.0.0.1", "localhost", "::1"]);

export function connectHost(host: string): string {
  return host === "localhost" ? "127.0.0.1" : host;
}

/** Resolves true when something accepts TCP connections at host:port. */
export function portAnswers(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: connectHost(host), port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

/** The HTTP status of a GET, or 0 when nothing answered in time. */
export function httpStatus(url: string, timeoutMs = 2000): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false, timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.once("timeout", () => req.destroy(new Error("timeout")));
    req.once("error", () => resolve(0));
  });
}

function portOwnerHint(port: number): string {
  const ss = spawnSync("ss", ["-ltnpH", `sport = :${port}`], { encoding: "utf8" });
  const m = ss.status === 0 ? /users:\(\("([^"]+)",pid=(\d+)/.exec(ss.stdout) : null;
  return m ? ` by ${m[1]} (pid ${m[2]})` : "";
}

/** The error for a port something else holds: who holds it, if `ss` can tell, and what to set. */
export function foreignPort(port: number, varName: string, what: string): StackError {
  return new StackError(
    `port ${port} (${what}) is already in use${portOwnerHint(port)}, not by a server this stack ` +
      `started. Stop that program or choose another port with ${varName}=…`,
  );
}
