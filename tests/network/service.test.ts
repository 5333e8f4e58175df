/**
 * The network service as the stack runs it, on a table of this test's own: the control API's
 * routes (GET /network, POST /network/grudge and /network/heal, /reset-faults), what /status says,
 * the rules the kernel then holds, and the table gone once the service stops. The drops themselves
 * are partition.test.ts's. No client is given a stack gid here, so nothing real is cut.
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

  beforeAll(async () => {
    // Sentinels and their pair on ports where nothing answers: `primary` cannot be resolved.
    const [s1, s2, s3, r1, r2] = await freePorts(5);
    const cfg = readConfig({
      STACK_CONTROL_TOKEN: "t",
      SENTINELS: [s1, s2, s3].map((p) => `127.0.0.1:${p}`).join(","),
      SENTINEL_REDIS: [r1, r2].map((p) => `127.0.0.1:${p}`).join(","),
    });
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
    expect(rules).toContain('ct mark 0x0000ee49 ct direction original tcp dport 7003 drop comment "app-1 -> redis-3"');
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
