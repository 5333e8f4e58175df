/**
 * The local stack's control API (scripts/stack/control.ts) over stand-in services: routing, the
 * token, the error bodies, and the routes lib/lab/stack-control.ts' callers use. The server test
 * listens on an ephemeral port of 127.0.0.1; no stack is started.
 */
import type http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  MAX_BODY_BYTES,
  controlRoutes,
  getStatus,
  matchRoute,
  pick,
  routePath,
  startControlServer,
  tokenMatches,
} from "../../scripts/stack/control";
import { HttpError } from "../../scripts/stack/errors";
import type { Route, Service } from "../../scripts/stack/service";
import { sleep } from "../support/wait";

function fakeService(name: string, stage: Service["stage"], calls: string[], routes: Route[] = []): Service {
  return {
    name,
    stage,
    claim: async () => {},
    start: async () => {},
    stop: async () => {},
    status: async () => ({ up: true, name }),
    routes,
    resetFaults: async () => {
      calls.push(name);
    },
  };
}

function httpErrorOf(fn: () => unknown): HttpError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(HttpError);
    return err as HttpError;
  }
  throw new Error("no HttpError");
}

describe("pick", () => {
  const nodes = [
    { index: 1, managed: true },
    { index: 2, managed: false },
    { index: 3, managed: false, unmanagedReason: "there was no production build to start" },
  ];

  it("returns the item a route's number names", () => {
    expect(pick(nodes, "1", "redis node")).toBe(nodes[0]);
  });

  it("404s for a number out of range", () => {
    const err = httpErrorOf(() => pick(nodes, "9", "redis node"));
    expect([err.status, err.code, err.message]).toEqual([404, "not_found", "no redis node 9 (there are 3)"]);
  });

  it("409s for one the stack does not control, saying why", () => {
    const err = httpErrorOf(() => pick(nodes, "2", "app"));
    expect([err.status, err.code]).toEqual([409, "not_managed"]);
    expect(err.message).toBe("app 2 is not controlled by the stack: it was already running when the stack started");
    expect(httpErrorOf(() => pick(nodes, "3", "app")).message).toMatch(/no production build to start$/);
  });
});

describe("routing", () => {
  const calls: string[] = [];
  const stop: Route = { method: "POST", path: /^\/redis\/(\d+)\/stop$/, handle: async ([n]) => ({ stopped: n }) };
  const services = [fakeService("postgres", "store", calls), fakeService("redis", "store", calls, [stop]), fakeService("apps", "app", calls)];
  const routes = controlRoutes(services);

  it("normalises the path: no query, no trailing slashes", () => {
    expect(routePath("/status/?x=1")).toBe("/status");
    expect(routePath("/redis/2/stop//")).toBe("/redis/2/stop");
    expect(routePath("/")).toBe("/");
    expect(routePath(undefined)).toBe("/");
  });

  it("finds a service's route and passes its path groups", () => {
    const { route, params } = matchRoute(routes, "POST", "/redis/12/stop");
    expect(route).toBe(stop);
    expect(params).toEqual(["12"]);
  });

  it("404s an unknown path and 405s a known path with the wrong method", () => {
    const missing = httpErrorOf(() => matchRoute(routes, "POST", "/redis/x/stop"));
    expect([missing.status, missing.code, missing.message]).toEqual([404, "not_found", "no route /redis/x/stop"]);
    const method = httpErrorOf(() => matchRoute(routes, "POST", "/status"));
    expect([method.status, method.code, method.message]).toEqual([405, "method_not_allowed", "/status takes GET"]);
    expect(httpErrorOf(() => matchRoute(routes, "GET", "/reset-faults")).message).toBe("/reset-faults takes POST");
  });

  it("answers /status with every service's part under its name", async () => {
    expect(await getStatus(services)).toEqual({
      postgres: { up: true, name: "postgres" },
      redis: { up: true, name: "redis" },
      apps: { up: true, name: "apps" },
    });
  });

  it("resets faults service after service in list order, then answers with the status", async () => {
    calls.length = 0;
    const body = await matchRoute(routes, "POST", "/reset-faults").route.handle([]);
    expect(calls).toEqual(["postgres", "redis", "apps"]);
    expect(Object.keys(body as object)).toEqual(["postgres", "redis", "apps"]);
  });
});

describe("tokenMatches", () => {
  it("accepts only the exact token", () => {
    expect(tokenMatches("abc", "abc")).toBe(true);
    expect(tokenMatches("abd", "abc")).toBe(false);
    expect(tokenMatches("abcd", "abc")).toBe(false);
    expect(tokenMatches(undefined, "abc")).toBe(false);
    expect(tokenMatches(["abc", "abc"], "abc")).toBe(false);
  });
});

describe("the control server", () => {
  let server: http.Server | undefined;
  let stopping = false;
  afterEach(() => {
    server?.close();
    server?.closeAllConnections();
    server = undefined;
    stopping = false;
  });

  async function serve(routes: Route[]) {
    server = await startControlServer({ port: 0, token: "t0k", routes, isStopping: () => stopping });
    const { port } = server.address() as AddressInfo;
    return async (path: string, method = "POST", token = "t0k") => {
      const res = await fetch(`http://127.0.0.1:${port}${path}`, { method, headers: { "x-stack-token": token } });
      expect(res.headers.get("content-type")).toBe("application/json");
      expect(res.headers.get("cache-control")).toBe("no-store");
      return { status: res.status, body: await res.json() };
    };
  }

  it("answers 200 with the handler's result, and the error bodies with their codes", async () => {
    const call = await serve([
      { method: "GET", path: /^\/status$/, handle: async () => ({ ok: true }) },
      { method: "POST", path: /^\/boom$/, handle: async () => Promise.reject(new Error("disk full")) },
      { method: "POST", path: /^\/busy$/, handle: async () => Promise.reject(new HttpError(409, "not_running", "app-1 is paused")) },
    ]);
    expect(await call("/status", "GET")).toEqual({ status: 200, body: { ok: true } });
    expect(await call("/status", "GET", "wrong")).toEqual({
      status: 401,
      body: { code: "unauthorized", message: "missing or wrong x-stack-token header (STACK_CONTROL_TOKEN)" },
    });
    expect((await call("/nowhere")).status).toBe(404);
    expect((await call("/status")).status).toBe(405);
    expect(await call("/boom")).toEqual({ status: 500, body: { code: "internal", message: "disk full" } });
    expect(await call("/busy")).toEqual({ status: 409, body: { code: "not_running", message: "app-1 is paused" } });
    stopping = true;
    expect(await call("/status", "GET")).toEqual({
      status: 503,
      body: { code: "stopping", message: "the stack is shutting down" },
    });
  });

  it("runs fault operations one at a time, even after one fails", async () => {
    const log: string[] = [];
    const slow = (name: string, fail = false): Route => ({
      method: "POST",
      path: new RegExp(`^/${name}$`),
      async handle() {
        log.push(`${name} start`);
        await sleep(30); // a slow operation, so a second one started beside it would interleave
        log.push(`${name} end`);
        if (fail) throw new Error(name);
        return {};
      },
    });
    const call = await serve([slow("a", true), slow("b")]);
    const answers = await Promise.all([call("/a"), call("/b")]);
    expect(answers.map((a) => a.status)).toEqual([500, 200]);
    expect(log).toEqual(["a start", "a end", "b start", "b end"]);
  });
});

describe("a POST's JSON body", () => {
  let server: http.Server | undefined;
  afterEach(() => {
    server?.close();
    server?.closeAllConnections();
    server = undefined;
  });

  it("reaches the handler parsed; an empty one is undefined, a bad one 400, a huge one 413", async () => {
    const seen: unknown[] = [];
    server = await startControlServer({
      port: 0,
      token: "t0k",
      routes: [{ method: "POST", path: /^\/echo$/, handle: async (_params, body) => (seen.push(body), { body: body ?? null }) }],
      isStopping: () => false,
    });
    const { port } = server.address() as AddressInfo;
    const post = async (body?: string) => {
      const res = await fetch(`http://127.0.0.1:${port}/echo`, { method: "POST", headers: { "x-stack-token": "t0k" }, body });
      return { status: res.status, body: await res.json() };
    };
    expect(await post('{"cuts":[{"client":"app-1","server":"redis-3"}]}')).toEqual({
      status: 200,
      body: { body: { cuts: [{ client: "app-1", server: "redis-3" }] } },
    });
    expect(await post()).toEqual({ status: 200, body: { body: null } });
    expect(await post("{cuts:")).toEqual({ status: 400, body: { code: "invalid_json", message: "the request body is not JSON" } });
    expect((await post(`"${"x".repeat(MAX_BODY_BYTES)}"`)).body.code).toBe("body_too_large");
    expect(seen).toEqual([{ cuts: [{ client: "app-1", server: "redis-3" }] }, undefined]);
  });
});
