/**
 * The network service as the stack runs it, on a table of this test's own: the control API's
 * routes (GET /network, POST /network/grudge and /network/heal, /reset-faults), what /status says,
 * the rules the kernel then holds, and the table gone once the service stops. The drops themselves
 * are partition.test.ts's. Every server of its topology is on a free 17xxx port: a stack running
 * beside it (npm test runs one) has clients with these gids, and must not lose a packet to this.
 */
import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readConfig } from "../../scripts/stack/config";
import { controlRoutes, matchRoute } from "../../scripts/stack/control";
import { HttpError } from "../../scripts/stack/errors";
import type { Service, StackContext } from "../../scripts/stack/service";
import { networkService } from "../../scripts/stack/services/network";
import { freePorts, machineUnfit } from "./support/machine";

const unfit = machineUnfit();
const TABLE = `locklab_dev_${process.pid}_svc`;
const kernelRules = () => spawnSync("nft", ["list", "table", "inet", TABLE], { encoding: "utf8" });

describe.skipIf(unfit !== null)(`the network service${unfit ? ` (skipped: ${unfit})` : ""}`, () => {
  let service: Service;
  let call: (method: string, path: string, body?: unknown) => Promise<{ status: number; body: Record<string, unknown> }>;
  let redis3Port: number;

  beforeAll(async () => {
    // Nothing answers on these ports: `primary` cannot be resolved, and no cut touches a real server.
    const ports = await freePorts(27);
    const addrs = (n: number) => ports.splice(0, n).map((p) => `127.0.0.1:${p}`).join(",");
    // etcd's peer port is its client port + 1: every other free port.
    const etcd = ports.splice(0, 6).filter((_p, i) => i % 2 === 0).map((p) => `127.0.0.1:${p}`).join(",");
    const cfg = readConfig({
      STACK_CONTROL_TOKEN: "t",
      REDIS_NODES: addrs(5),
      SENTINELS: addrs(3),
      SENTINEL_REDIS: addrs(2),
      ZOOKEEPER_HOSTS: addrs(3),
      ETCD_ENDPOINTS: etcd,
      REDIS_CLUSTER_NODES: addrs(6),
      DATABASE_URL: `postgresql://locklab@127.0.0.1:${ports.shift()}/locklab`,
      PGBOUNCER_URL: `postgresql://locklab@127.0.0.1:${ports.shift()}/locklab`,
    });
    redis3Port = cfg.redis[2]!.port;
    const ctx: StackContext = { cfg, opts: {}, env: {} as StackContext["env"], stopping: false, faultsActive: () => false };
    service = networkService({ table: TABLE })(ctx);
    const routes = controlRoutes([service]);
    call = async (method, path, body) => {
      const { route, params } = matchRoute(routes, method, path);
      try {
        return { status: 200, body: (await route.handle(params, body)) as Record<string, unknown> };
      } catch (err) {
        if (!(err instanceof HttpError)) throw err;
        return { status: err.status, body: { code: err.code, message: err.message } };
      }
    };
    await service.claim();
    await service.start();
  });

  afterAll(async () => {
    await service?.stop();
  });

  it("starts with its table and no cut, and lists every link", async () => {
    expect(await service.status()).toEqual({ available: true, table: `inet ${TABLE}`, cuts: [], since: null });
    const { body } = await call("GET", "/network");
    expect((body.clients as { name: string }[]).map((c) => c.name)).toContain("app-2");
    expect((body.servers as { name: string }[]).map((s) => s.name)).toContain("etcd-3-peer");
    expect(body.aliases).toEqual({});
    expect(kernelRules().stdout).toContain('meta skgid 61001 ct mark set 0x0000ee49 comment "app-1"');
  });

  it("applies a grudge: the answer, /status and the kernel's rules say the same", async () => {
    const { status, body } = await call("POST", "/network/grudge", {
      cuts: [{ client: "app-1", server: "redis-3", direction: "to-server" }],
      isolate: ["etcd-1"],
    });
    expect(status).toBe(200);
    expect(body.cuts).toEqual([
      { client: "app-1", server: "redis-3", direction: "to-server" },
      { client: "etcd-1", server: "etcd-2-peer", direction: "both" },
      { client: "etcd-1", server: "etcd-3-peer", direction: "both" },
      { client: "etcd-2", server: "etcd-1-peer", direction: "both" },
      { client: "etcd-3", server: "etcd-1-peer", direction: "both" },
    ]);
    expect(await service.status()).toMatchObject({ available: true, cuts: body.cuts, since: expect.any(String) });
    expect(service.faulted?.()).toBe(true);
    const rules = kernelRules().stdout;
    expect(rules).toContain(`ct mark 0x0000ee49 ct direction original tcp dport ${redis3Port} drop comment "app-1 -> redis-3"`);
    expect(rules.match(/ drop comment/g)).toHaveLength(1 + 4 * 2);
  });

  it("refuses what names no link, and a role no one can resolve, leaving the cuts in force", async () => {
    expect(await call("POST", "/network/grudge", { cuts: [{ client: "app-9", server: "redis-3" }] })).toMatchObject({
      status: 422,
      body: { code: "unknown_client" },
    });
    expect(await call("POST", "/network/grudge", { cuts: [{ client: "app-1", server: "primary" }] })).toMatchObject({
      status: 409,
      body: { code: "roles_unknown" },
    });
    expect(((await service.status()) as { cuts: unknown[] }).cuts).toHaveLength(5);
  });

  it("heals on /network/heal and on /reset-faults", async () => {
    expect((await call("POST", "/network/heal")).body).toMatchObject({ cuts: [], since: null });
    expect(kernelRules().stdout).not.toContain(" drop");
    await call("POST", "/network/grudge", { cuts: [{ client: "app-2", server: "postgres" }] });
    await call("POST", "/reset-faults");
    expect(await service.status()).toMatchObject({ cuts: [] });
    expect(service.faulted?.()).toBe(false);
  });

  it("takes its table with it when it stops, and then says links cannot be cut", async () => {
    await call("POST", "/network/grudge", { cuts: [{ client: "app-2", server: "postgres" }] });
    await service.stop();
    expect(kernelRules().status).not.toBe(0);
    expect(await service.status()).toMatchObject({ available: false, cuts: [], reason: expect.stringContaining("nft ended") });
    expect(await call("POST", "/network/grudge", { cuts: [{ client: "app-2", server: "postgres" }] })).toMatchObject({
      status: 503,
      body: { code: "network_unavailable" },
    });
  });
});
