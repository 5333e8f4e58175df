/**
 * Per-link partitions, the pure part: which names an instructor may cut, what a grudge may say
 * (and the stable codes it is refused with), and the nftables rules it becomes, on the stack's
 * real topology. No nft runs here (tests/network/ cuts real sockets).
 */
import { describe, expect, it } from "vitest";
import { readConfig } from "../../scripts/stack/config";
import { HttpError } from "../../scripts/stack/errors";
import {
  type Cut,
  GID_RANGE,
  isolationCuts,
  parseGrudge,
  renderCut,
  renderGrudge,
  renderTable,
  roleGid,
  spawnGid,
} from "../../scripts/stack/network";
import { namesAlias, stackTopology } from "../../scripts/stack/services/network";

const topology = stackTopology(readConfig({ STACK_CONTROL_TOKEN: "t" }));
const names = (list: readonly { readonly name: string }[]) => list.map((x) => x.name);

function refusal(fn: () => unknown): [number, string, string] {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(HttpError);
    const { status, code, message } = err as HttpError;
    return [status, code, message];
  }
  throw new Error("not refused");
}

describe("the links of the stack", () => {
  it("names every client and server an instructor can pick in the grid", () => {
    expect(names(topology.clients)).toEqual([
      "app-1", "app-2",
      "sentinel-1", "sentinel-2", "sentinel-3",
      "sentinel-redis-1", "sentinel-redis-2",
      "redis-cluster-1", "redis-cluster-2", "redis-cluster-3", "redis-cluster-4", "redis-cluster-5", "redis-cluster-6",
      "zookeeper-1", "zookeeper-2", "zookeeper-3",
      "etcd-1", "etcd-2", "etcd-3",
      "pgbouncer",
    ]);
    expect(topology.servers.map((s) => [s.name, s.ports])).toEqual([
      ["redis-1", [7001]], ["redis-2", [7002]], ["redis-3", [7003]], ["redis-4", [7004]], ["redis-5", [7005]],
      ["sentinel-redis-1", [7101]], ["sentinel-redis-2", [7102]],
      ["sentinel-1", [26381]], ["sentinel-2", [26382]], ["sentinel-3", [26383]],
      ["redis-cluster-1", [7201]], ["redis-cluster-1-peer", [7301]], ["redis-cluster-2", [7202]], ["redis-cluster-2-peer", [7302]],
      ["redis-cluster-3", [7203]], ["redis-cluster-3-peer", [7303]], ["redis-cluster-4", [7204]], ["redis-cluster-4-peer", [7304]],
      ["redis-cluster-5", [7205]], ["redis-cluster-5-peer", [7305]], ["redis-cluster-6", [7206]], ["redis-cluster-6-peer", [7306]],
      ["zookeeper-1", [12181]], ["zookeeper-1-peer", [12888, 13888]],
      ["zookeeper-2", [12182]], ["zookeeper-2-peer", [12889, 13889]],
      ["zookeeper-3", [12183]], ["zookeeper-3-peer", [12890, 13890]],
      ["etcd-1", [12379]], ["etcd-1-peer", [12380]],
      ["etcd-2", [12389]], ["etcd-2-peer", [12390]],
      ["etcd-3", [12399]], ["etcd-3-peer", [12400]],
      ["postgres", [55432]],
      ["pgbouncer", [55433]],
    ]);
  });

  it("gives each client its own group id inside the marked range, and none when the stack cannot set one", () => {
    const gids = topology.clients.map((c) => c.gid);
    expect(new Set(gids).size).toBe(gids.length);
    expect(gids.every((g) => g >= GID_RANGE.first && g <= GID_RANGE.last)).toBe(true);
    expect([roleGid("app", 2), roleGid("sentinel-redis", 1), roleGid("etcd", 3), roleGid("redis", 5)]).toEqual([61002, 61201, 61403, 61505]);
    expect([roleGid("redis-cluster", 6), roleGid("pgbouncer", 1)]).toEqual([61606, 61701]);
    expect(spawnGid("app", 1, true)).toBe(61001);
    expect(spawnGid("app", 1, false)).toBeUndefined();
    expect(() => roleGid("app", 0)).toThrow(RangeError);
  });
});

describe("a grudge", () => {
  it("keeps the instructor's cuts, direction both unless said, merged per link and in grid order", () => {
    const cuts = parseGrudge(
      {
        cuts: [
          { client: "app-2", server: "redis-1" },
          { client: "app-1", server: "redis-4", direction: "to-server" },
          { client: "app-1", server: "redis-4", direction: "to-client" },
          { client: "app-1", server: "redis-5", direction: "to-client" },
        ],
      },
      topology,
    );
    expect(cuts).toEqual([
      { client: "app-1", server: "redis-4", direction: "both" },
      { client: "app-1", server: "redis-5", direction: "to-client" },
      { client: "app-2", server: "redis-1", direction: "both" },
    ]);
  });

  it("binds primary and replica to the members they name when it is made", () => {
    const afterFailover = { primary: "sentinel-redis-2", replica: "sentinel-redis-1" };
    expect(parseGrudge({ cuts: [{ client: "replica", server: "primary" }, { client: "app-1", server: "primary" }] }, topology, afterFailover)).toEqual([
      { client: "app-1", server: "sentinel-redis-2", direction: "both" },
      { client: "sentinel-redis-1", server: "sentinel-redis-2", direction: "both" },
    ]);
    expect(namesAlias({ cuts: [{ client: "app-1", server: "primary" }] })).toBe(true);
    expect(namesAlias({ isolate: ["replica"] })).toBe(true);
    expect(namesAlias({ cuts: [{ client: "app-1", server: "redis-1" }] })).toBe(false);
  });

  it("isolates a Redis Cluster node from its five peers' cluster bus, both ways", () => {
    const cuts = parseGrudge({ isolate: ["redis-cluster-2"] }, topology);
    expect(cuts).toHaveLength(10);
    expect(cuts).toContainEqual({ client: "redis-cluster-2", server: "redis-cluster-5-peer", direction: "both" });
    expect(cuts).toContainEqual({ client: "redis-cluster-5", server: "redis-cluster-2-peer", direction: "both" });
    expect(renderCut("locklab_dev_unit", topology, { client: "pgbouncer", server: "postgres", direction: "to-server" })).toEqual([
      'add rule inet locklab_dev_unit cuts ct mark 61701 ct direction original tcp dport 55432 drop comment "pgbouncer -> postgres"',
    ]);
  });

  it("isolates a member from its peers both ways and leaves its clients alone", () => {
    const cuts = isolationCuts(topology, "etcd-1");
    expect(cuts).toEqual([
      { client: "etcd-1", server: "etcd-2-peer", direction: "both" },
      { client: "etcd-2", server: "etcd-1-peer", direction: "both" },
      { client: "etcd-1", server: "etcd-3-peer", direction: "both" },
      { client: "etcd-3", server: "etcd-1-peer", direction: "both" },
    ]);
    expect(parseGrudge({ isolate: ["zookeeper-3"] }, topology).every((c) => c.server.endsWith("-peer"))).toBe(true);
  });

  it("refuses with stable codes what names no link", () => {
    expect(refusal(() => parseGrudge({ cuts: [{ client: "app-3", server: "redis-1" }] }, topology))).toEqual([
      422,
      "unknown_client",
      expect.stringContaining('no client "app-3"; clients: app-1, app-2, sentinel-1'),
    ]);
    expect(refusal(() => parseGrudge({ cuts: [{ client: "app-1", server: "redis-9" }] }, topology)).slice(0, 2)).toEqual([422, "unknown_server"]);
    expect(refusal(() => parseGrudge({ cuts: [{ client: "app-1", server: "redis-1", direction: "sideways" }] }, topology))).toEqual([
      422,
      "invalid_grudge",
      "cuts[0].direction must be one of both, to-server, to-client",
    ]);
    expect(refusal(() => parseGrudge({ cuts: [{ client: "zookeeper-1", server: "zookeeper-1-peer" }] }, topology)).slice(0, 2)).toEqual([422, "self_link"]);
    expect(refusal(() => parseGrudge({ isolate: ["app-1"] }, topology)).slice(0, 2)).toEqual([422, "cannot_isolate"]);
    for (const body of [undefined, [], { cuts: [] }, { cuts: "app-1" }, { cuts: [{ client: "app-1" }] }, { cuts: [], extra: 1 }]) {
      expect(refusal(() => parseGrudge(body, topology)).slice(0, 2)).toEqual([422, "invalid_grudge"]);
    }
    const many = Array.from({ length: 3 }, () => ({ client: "app-1", server: "redis-1" }));
    expect(refusal(() => parseGrudge({ cuts: many }, topology, {}, { maxCuts: 2 })).slice(0, 2)).toEqual([422, "invalid_grudge"]);
  });
});

describe("the rules", () => {
  const T = "locklab_dev_unit";

  it("stamp each client's new connections with its gid, in an owner table with the cut chain on input", () => {
    const setup = renderTable(T, topology).split(/; (?=add )/);
    expect(setup.slice(0, 4)).toEqual([
      `add table inet ${T} { flags owner; }`,
      `add chain inet ${T} clients { type filter hook output priority mangle; policy accept; }`,
      `add chain inet ${T} cuts { type filter hook input priority filter; policy accept; }`,
      `add chain inet ${T} sync`,
    ]);
    expect(setup).toContain(`add rule inet ${T} clients ct state new meta l4proto tcp meta skgid 61002 ct mark set 61002 comment "app-2"`);
    expect(setup).toHaveLength(4 + topology.clients.length);
  });

  it("drop a cut's original direction to the server's ports, its reply direction from them", () => {
    const cut = (direction: Cut["direction"]): Cut => ({ client: "app-1", server: "redis-3", direction });
    expect(renderCut(T, topology, cut("to-server"))).toEqual([
      `add rule inet ${T} cuts ct mark 61001 ct direction original tcp dport 7003 drop comment "app-1 -> redis-3"`,
    ]);
    expect(renderCut(T, topology, cut("to-client"))).toEqual([
      `add rule inet ${T} cuts ct mark 61001 ct direction reply tcp sport 7003 drop comment "redis-3 -> app-1"`,
    ]);
    expect(renderCut(T, topology, cut("both"))).toHaveLength(2);
    expect(renderCut(T, topology, { client: "zookeeper-1", server: "zookeeper-2-peer", direction: "to-server" })).toEqual([
      `add rule inet ${T} cuts ct mark 61301 ct direction original tcp dport { 12889, 13889 } drop comment "zookeeper-1 -> zookeeper-2-peer"`,
    ]);
  });

  it("replace the previous grudge in one transaction, and an empty grudge heals", () => {
    const grudge = renderGrudge(T, topology, [{ client: "app-2", server: "postgres", direction: "to-server" }]);
    expect(grudge).toBe(
      `flush chain inet ${T} cuts; add rule inet ${T} cuts ct mark 61002 ct direction original tcp dport 55432 drop comment "app-2 -> postgres"`,
    );
    expect(renderGrudge(T, topology, [])).toBe(`flush chain inet ${T} cuts`);
    expect(() => renderTable("locklab; flush ruleset", topology)).toThrow(RangeError);
  });
});
