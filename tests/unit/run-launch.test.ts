import crypto from "node:crypto";
import fs from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { spawnDriver } from "@/lib/runs/launch";
import type { RunRecord } from "@/lib/runs/runs";
import { openRunLog, runLogDir } from "@/lib/stack/run-files";

// The dashboard's Run button, from the app's side: the real driver process started as the app
// starts it, against a stand-in store on 127.0.0.1. What anyone on the machine could see of it
// (its command line) and where its log goes.

let store: { url: string; tokens: string[]; completions: number; close(): Promise<void> };
let logDir = "";
const savedLogDir = process.env.LOCKLAB_LOG_DIR;

async function readBody(request: IncomingMessage): Promise<string> {
  let body = "";
  for await (const chunk of request) body += chunk;
  return body;
}

beforeAll(async () => {
  const tokens: string[] = [];
  let completions = 0;
  let left = 5;
  const send = (response: ServerResponse, status: number, payload: unknown) =>
    response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(payload));
  const server: Server = createServer(async (request, response) => {
    await readBody(request);
    if (request.url === "/api/buy") return left-- > 0 ? send(response, 201, { status: "bought" }) : send(response, 409, { code: "sold_out" });
    tokens.push(String(request.headers["x-run-token"]));
    if (request.url === "/api/admin/runs/9/progress") return response.writeHead(204).end();
    if (request.url === "/api/admin/runs/9/complete") {
      completions++;
      return send(response, 200, { run: { id: 9 } });
    }
    send(response, 404, { code: "not_found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  store = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tokens,
    get completions() {
      return completions;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  logDir = fs.mkdtempSync(path.join(os.tmpdir(), "locklab-runlogs-"));
});

afterEach(() => {
  if (savedLogDir === undefined) delete process.env.LOCKLAB_LOG_DIR;
  else process.env.LOCKLAB_LOG_DIR = savedLogDir;
});

afterAll(async () => {
  await store.close();
  fs.rmSync(logDir, { recursive: true, force: true });
});

// A real driver process (Node and autocannon starting): more than vitest's 5 s default on a busy machine.
describe("a load run's driver, as the app starts it", { timeout: 30_000 }, () => {
  it("gets the run's token by environment: not on its command line, and still reports with it", async () => {
    process.env.LOCKLAB_LOG_DIR = logDir; // what the stack gives its app instances
    const token = crypto.randomBytes(24).toString("base64url");
    const run = { id: 9, vus: 2, durationMs: null, totalRequests: 20, knobs: {} } as unknown as RunRecord;
    const child = spawnDriver(run, token, store.url);
    const exited = new Promise<number | null>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("the driver did not finish within 20 s")), 20_000);
      child.once("exit", (code) => {
        clearTimeout(timer);
        resolve(code);
      });
    });
    // What `ps` shows everyone, read while it runs.
    const cmdline = fs.readFileSync(`/proc/${child.pid}/cmdline`, "utf8").split("\0");
    expect(cmdline).toContain("--run");
    expect(cmdline.join(" ")).not.toContain(token);
    expect(fs.readFileSync(`/proc/${child.pid}/environ`, "utf8").split("\0")).toContain(`RUN_TOKEN=${token}`);

    expect(await exited).toBe(0);
    expect(store.completions).toBe(1);
    expect(new Set(store.tokens)).toEqual(new Set([token]));
    const log = path.join(logDir, "run-9.log");
    expect(fs.statSync(log).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(log, "utf8")).toContain('"bought":5');
  });

  it("outside the stack its log goes in a directory of this process's own, never a guessable /tmp name", () => {
    delete process.env.LOCKLAB_LOG_DIR;
    const dir = runLogDir();
    expect(path.dirname(dir)).toBe(os.tmpdir());
    expect(path.basename(dir)).toMatch(/^lock-lab-logs-\w{6}$/);
    expect(fs.lstatSync(dir).mode & 0o777).toBe(0o700);
    const { fd, file } = openRunLog("run-10.log");
    fs.closeSync(fd);
    expect(path.dirname(file)).toBe(dir);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);

    // A symlink where the log would go is not followed (O_NOFOLLOW).
    const target = path.join(logDir, "not-a-log");
    fs.writeFileSync(target, "");
    fs.symlinkSync(target, path.join(dir, "run-11.log"));
    expect(() => openRunLog("run-11.log")).toThrow(/ELOOP/);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
