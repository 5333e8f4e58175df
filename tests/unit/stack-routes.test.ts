/**
 * The control API's routes as the real services (scripts/stack/services/) declare them: every call
 * the lab, the tests and lib/lab/stack-control.ts make has its route, and the routes refuse what
 * the stack does not control before touching any process. Nothing is claimed or started: the
 * services are only constructed (Postgres' layout is stubbed so no directory is probed).
 */
import { describe, expect, it, vi } from "vitest";
import { readConfig } from "../../scripts/stack/config";
import { controlRoutes, matchRoute } from "../../scripts/stack/control";
import { HttpError } from "../../scripts/stack/errors";
import type { StackContext } from "../../scripts/stack/service";
import { SERVICES } from "../../scripts/stack/services/index";

vi.mock("../../scripts/stack/services/postgres-cluster", async (importOriginal) => ({
  ...(await importOriginal<object>()),
  postgresLayout: () => ({ bin: null, owner: null, dataDir: "/nonexistent/pg", note: null, managed: false, handle: null }),
}));

const ctx: StackContext = {
  cfg: readConfig({ STACK_CONTROL_TOKEN: "t" }),
  opts: {},
  get env(): never {
    throw new Error("env is not read while routing");
  },
  stopping: false,
  faultsActive: () => false,
};
const services = SERVICES.map((factory) => factory(ctx));
const routes = controlRoutes(services);

async function refusal(method: string, path: string): Promise<[number, string, string]> {
  const { route, params } = matchRoute(routes, method, path);
  const err = await route.handle(params).then(
    () => {
      throw new Error(`${path} did not refuse`);
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(HttpError);
  const { status, code, message } = err as HttpError;
  return [status, code, message];
}

describe("control routes", () => {
  it.each([
    ["GET", "/status"],
    ["POST", "/reset-faults"],
    ["POST", "/redis/1/stop"],
    ["POST", "/redis/5/start"],
    ["POST", "/apps/1/pause"],
    ["POST", "/apps/2/resume"],
    ["POST", "/apps/1/kill"],
    ["POST", "/apps/1/stop"],
    ["POST", "/apps/2/start"],
    ["POST", "/postgres/stop"],
    ["POST", "/postgres/start"],
    ["POST", "/sentinel-redis/1/kill"],
    ["POST", "/sentinel/3/pause"],
    ["POST", "/zookeeper/2/stop"],
    ["POST", "/etcd/3/resume"],
    ["POST", "/zookeeper/stop"],
    ["POST", "/redis-cluster/4/kill"],
    ["POST", "/redis-cluster/stop"],
    ["POST", "/redis-cluster/start"],
    ["POST", "/redis-cluster/5/failover"],
    ["GET", "/redis-cluster/owner/lock:goods:001"],
    ["POST", "/pgbouncer/1/pause"],
    ["POST", "/nginx/expose/lan"],
    ["POST", "/nginx/expose/loopback"],
    ["POST", "/nginx/room/30"],
    ["GET", "/network"],
    ["POST", "/network/grudge"],
    ["POST", "/network/heal"],
    ["POST", "/redis/3/clock"],
    ["POST", "/redis/1/kill"],
  ])("%s %s exists", (method, path) => {
    expect(matchRoute(routes, method, path).route.method).toBe(method);
  });

  it("has no other routes", () => {
    // Two per lock-service cluster (PgBouncer is a cluster of one): /<service>/<n>/(stop|start|
    // pause|resume|kill) and /<service>/(stop|start); the Redis Cluster's failover and owner lookup;
    // nginx's exposure (workshop mode) and its per-address ceilings (the room); the network's three;
    // a Redis node's clock and its crash (kill).
    expect(routes).toHaveLength(32);
  });

  it("names a Redis node, app or cluster member that does not exist", async () => {
    expect(await refusal("POST", "/redis/6/stop")).toEqual([404, "not_found", "no redis node 6 (there are 5)"]);
    expect(await refusal("POST", "/zookeeper/4/pause")).toEqual([404, "not_found", "no zookeeper member 4 (there are 3)"]);
    expect(await refusal("POST", "/apps/3/kill")).toEqual([404, "not_found", "no app 3 (there are 2)"]);
  });

  it("refuses servers the stack does not control (none is, before the ports are claimed)", async () => {
    expect(await refusal("POST", "/redis/1/stop")).toEqual([
      409,
      "not_managed",
      "redis node 1 is not controlled by the stack: it was already running when the stack started",
    ]);
    expect((await refusal("POST", "/apps/1/pause"))[1]).toBe("not_managed");
    expect(await refusal("POST", "/postgres/stop")).toEqual([409, "not_managed", "postgres was already running when the stack started"]);
    expect(await refusal("POST", "/postgres/start")).toEqual([409, "not_managed", "postgres was already running when the stack started"]);
  });

  it("lists the services in /status under the names the client reads", () => {
    expect(services.map((s) => s.name)).toEqual(["network", "postgres", "redis", "sentinel-redis", "sentinel", "redis-cluster", "zookeeper", "etcd", "pgbouncer", "apps", "nginx"]);
  });
});
