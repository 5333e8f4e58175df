/**
 * The hall's two routes straight to their built handlers (scripts/app-direct-routes.cjs, loaded by
 * scripts/app-listener.cjs into `next start`), checked on real sockets: a child process started as
 * the stack starts an instance (`node --require app-listener.cjs …/next/dist/bin/next start`), where
 * the "Next" is a plain HTTP server answering "next", in a folder with a build of two pages.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const PRELOAD = path.resolve("scripts/app-listener.cjs");

/** Stands in for `next start`: one request listener, listen(port, host) as Next calls it. */
const FAKE_NEXT = `
  const http = require("node:http");
  const server = http.createServer((req, res) => res.end("next " + req.method + " " + req.url));
  server.listen(0, "127.0.0.1", () => process.stdout.write(JSON.stringify(server.address())));`;

/** A build with the two pages: buy as an async module (a promise of its exports, as Turbopack builds it), live as a plain one. */
function appFolder(manifest: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "locklab-direct-"));
  const bin = path.join(dir, "node_modules", "next", "dist", "bin");
  fs.mkdirSync(bin, { recursive: true });
  fs.writeFileSync(path.join(bin, "next"), FAKE_NEXT);
  const pages = path.join(dir, ".next", "server", "pages", "api");
  fs.mkdirSync(pages, { recursive: true });
  fs.writeFileSync(path.join(dir, ".next", "server", "pages-manifest.json"), JSON.stringify(manifest));
  fs.writeFileSync(path.join(pages, "buy.js"), `module.exports = Promise.resolve({ default: async (req, res) => res.end("direct buy " + req.method) });`);
  fs.writeFileSync(
    path.join(pages, "live.js"),
    // Not async: its throw is synchronous, which must not escape the request listener either.
    `module.exports = { default: (req, res) => { if (req.url.includes("boom")) throw new Error("boom"); res.end("direct live"); } };`,
  );
  return dir;
}

const BUILD = { "/api/buy": "pages/api/buy.js", "/api/live": "pages/api/live.js" };

interface Instance {
  child: ChildProcess;
  port: number;
  stderr: () => string;
}

async function startInstance(dir: string, command = "start", env: Record<string, string> = {}): Promise<Instance> {
  const child = spawn(process.execPath, ["--require", PRELOAD, path.join(dir, "node_modules", "next", "dist", "bin", "next"), command], {
    cwd: dir,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (data) => (stderr += String(data)));
  const address = await new Promise<{ port: number }>((resolve, reject) => {
    child.stdout!.once("data", (data) => resolve(JSON.parse(String(data))));
    child.once("exit", (code) => reject(new Error(`the instance exited (${code}) before listening: ${stderr}`)));
  });
  return { child, port: address.port, stderr: () => stderr };
}

async function ask(instance: Instance, route: string, method = "GET"): Promise<{ status: number; text: string }> {
  const response = await fetch(`http://127.0.0.1:${instance.port}${route}`, { method, signal: AbortSignal.timeout(5_000) });
  return { status: response.status, text: await response.text() };
}

/** Asks until the answer is no longer Next's (the handlers load in the background), at most 40 times. */
async function untilDirect(instance: Instance, route: string, method = "GET"): Promise<string> {
  let text = "";
  for (let attempt = 0; attempt < 40; attempt++) {
    text = (await ask(instance, route, method)).text;
    if (!text.startsWith("next")) return text;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return text;
}

describe("the hall's routes straight to their handlers", () => {
  const folders: string[] = [];
  const instances: Instance[] = [];
  const start = async (manifest: Record<string, string>, command?: string, env?: Record<string, string>) => {
    const dir = appFolder(manifest);
    folders.push(dir);
    const instance = await startInstance(dir, command, env);
    instances.push(instance);
    return instance;
  };
  afterAll(() => {
    for (const instance of instances) instance.child.kill("SIGKILL");
    for (const dir of folders) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("leaves the first request to Next, then serves exactly POST /api/buy and GET /api/live from the build", async () => {
    const instance = await start(BUILD);
    // Before Next has answered anything (its instrumentation has not run), even the hall's routes are Next's.
    expect(await ask(instance, "/api/buy", "POST")).toEqual({ status: 200, text: "next POST /api/buy" });

    expect(await untilDirect(instance, "/api/buy", "POST")).toBe("direct buy POST");
    expect((await ask(instance, "/api/live")).text).toBe("direct live");
    // Every method goes to the handler, which answers its own 405; a query does not change the route.
    expect((await ask(instance, "/api/buy", "DELETE")).text).toBe("direct buy DELETE");
    expect((await ask(instance, "/api/buy?x=1", "POST")).text).toBe("direct buy POST");
    // Any other path, or these written another way, is Next's.
    expect((await ask(instance, "/api/buy/", "POST")).text).toBe("next POST /api/buy/");
    expect((await ask(instance, "/api/%62uy", "POST")).text).toBe("next POST /api/%62uy");
    expect((await ask(instance, "/api/health")).text).toBe("next GET /api/health");
    expect((await ask(instance, "/")).text).toBe("next GET /");
  });

  it("answers a handler's escaped error with a JSON 500 and keeps serving", async () => {
    const instance = await start(BUILD);
    await ask(instance, "/");
    expect(await untilDirect(instance, "/api/live")).toBe("direct live");
    const boom = await ask(instance, "/api/live?boom");
    expect(boom.status).toBe(500);
    expect(JSON.parse(boom.text)).toMatchObject({ code: "internal" });
    expect(instance.stderr()).toContain("boom");
    expect((await ask(instance, "/api/live")).text).toBe("direct live");
  });

  it("leaves every request to Next when the build lacks a route, when LOCKLAB_DIRECT_ROUTES=0, and outside next start", async () => {
    const partial = await start({ "/api/buy": BUILD["/api/buy"] });
    await ask(partial, "/");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await ask(partial, "/api/buy", "POST")).text).toBe("next POST /api/buy");
    expect(partial.stderr()).toContain("every request stays Next's: the build has no /api/live page");

    const off = await start(BUILD, "start", { LOCKLAB_DIRECT_ROUTES: "0" });
    await ask(off, "/");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await ask(off, "/api/buy", "POST")).text).toBe("next POST /api/buy");

    const dev = await start(BUILD, "dev");
    await ask(dev, "/");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await ask(dev, "/api/buy", "POST")).text).toBe("next POST /api/buy");
  });
});
