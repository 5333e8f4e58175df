/**
 * The Redis Cluster's and PgBouncer's service modules as the stack runs them, without starting
 * either (tests/servers/ starts both for real): each node's arguments, how CLUSTER NODES is read
 * into who is primary of which slots, and the pgbouncer.ini the pooled-lock lesson depends on.
 */
import { describe, expect, it } from "vitest";
import { pgbouncerIni, pgbouncerUsers } from "../../scripts/stack/services/pgbouncer";
import { busPort, clusterNodeArgs, parseClusterNodes, servesSlot } from "../../scripts/stack/services/redis-cluster";

const member = { index: 1, host: "127.0.0.1", port: 7201, addr: "127.0.0.1:7201" };

describe("a Redis Cluster node", () => {
  it("runs in cluster mode without persistence, its bus on its port + 100", () => {
    const args = clusterNodeArgs(member, "/tmp/n1");
    const value = (flag: string) => args[args.indexOf(flag) + 1];
    expect(busPort(member)).toBe(7301);
    expect([value("--cluster-enabled"), value("--cluster-port"), value("--save"), value("--appendonly"), value("--dir")]).toEqual(["yes", "7301", "", "no", "/tmp/n1"]);
  });

  it("reads CLUSTER NODES into roles, primaries and slot ranges, failing nodes marked", () => {
    const nodes = parseClusterNodes([
      "aaa 127.0.0.1:7202@7302 master - 0 1795633366427 2 connected 5461-10922",
      "bbb 127.0.0.1:7201@7301 myself,master - 0 1795633366000 1 connected 0-5460 16000",
      "ccc 127.0.0.1:7204@7304 slave,fail aaa 0 1795633366427 2 disconnected",
      "",
    ].join("\n"));
    expect(nodes).toEqual([
      { id: "aaa", port: 7202, role: "primary", primaryId: null, failing: false, slots: [[5461, 10922]] },
      { id: "bbb", port: 7201, role: "primary", primaryId: null, failing: false, slots: [[0, 5460], [16000, 16000]] },
      { id: "ccc", port: 7204, role: "replica", primaryId: "aaa", failing: true, slots: [] },
    ]);
    expect([servesSlot("0-5460,16000", 320), servesSlot("0-5460,16000", 16000), servesSlot("5461-10922", 320), servesSlot("", 0)]).toEqual([true, true, false, false]);
  });
});

describe("pgbouncer.ini", () => {
  const ini = pgbouncerIni({
    listen: { host: "localhost", port: 55433 },
    name: "locklab",
    user: "locklab",
    server: { host: "127.0.0.1", port: 55432, name: "locklab" },
    authFile: "/stack/pgbouncer-1/userlist.txt",
  });
  const setting = (name: string) => new RegExp(`^${name} = (.*)$`, "m").exec(ini)?.[1];

  it("pools by transaction and resets nothing between clients, as it ships", () => {
    expect(setting("pool_mode")).toBe("transaction");
    expect(setting("server_reset_query_always")).toBe("0");
  });

  it("serves the database clients ask for from Postgres, on loopback, with trust", () => {
    expect(ini).toContain("[databases]\nlocklab = host=127.0.0.1 port=55432 dbname=locklab\n");
    expect([setting("listen_addr"), setting("listen_port"), setting("auth_type"), setting("auth_file")]).toEqual(["127.0.0.1", "55433", "trust", "/stack/pgbouncer-1/userlist.txt"]);
    expect(pgbouncerUsers('lock"lab')).toBe('"lock""lab" ""\n');
  });
});
