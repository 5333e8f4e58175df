// The Redis Cluster for the `cluster` strategies: six of Debian's redis-server in cluster mode
// (REDIS_CLUSTER_NODES; each node's cluster bus listens on its client port + 100), no persistence,
// joined at every stack start by `redis-cli --cluster create … --cluster-replicas 1` into three
// primaries (the first three nodes) each with one asynchronous replica. A primary that answers no
// peer for a second (cluster-node-timeout) is failed over to its replica; stopped and started
// again, it rejoins (its nodes.conf survives in its folder) as the replica of whoever took over.
// Beside each member's stop/start/pause/resume/kill and the whole cluster's stop/start:
//   POST /redis-cluster/<n>/failover  { mode?: "force" | "takeover" }  CLUSTER FAILOVER on replica n
//   GET  /redis-cluster/owner/<key>   the member that is the primary of the key's slot, and its replica

import { execFile } from "node:child_process";
import type { MemberConfig } from "../config";
import { type ClusterView, clusterService } from "../cluster";
import { HttpError, StackError } from "../errors";
import { say } from "../log";
import { connectHost } from "../ports";
import { waitFor } from "../processes";
import { redisCommand, redisPing, redisReply } from "../resp";

/** How long a primary may not answer its peers before it is failed over (Sentinel's down-after is 1 s too). */
export const CLUSTER_NODE_TIMEOUT_MS = 1000;
export const busPort = (m: MemberConfig) => m.port + 100;

export function clusterNodeArgs(m: MemberConfig, dir: string): string[] {
  return [
    "--port", String(m.port),
    "--bind", connectHost(m.host),
    "--cluster-enabled", "yes",
    "--cluster-config-file", "nodes.conf",
    "--cluster-port", String(busPort(m)),
    "--cluster-node-timeout", String(CLUSTER_NODE_TIMEOUT_MS),
    "--save", "",
    "--appendonly", "no",
    "--dir", dir,
    "--logfile", "",
    // A replica syncs at once rather than after diskless replication's default 5 s wait.
    "--repl-diskless-sync-delay", "0",
  ];
}

/** `redis-cli --cluster create`: the first half of the nodes become primaries, each of the rest a replica. */
export function createCluster(members: readonly MemberConfig[], timeoutMs = 30_000): Promise<void> {
  const args = ["--cluster", "create", ...members.map((m) => `${connectHost(m.host)}:${m.port}`), "--cluster-replicas", "1", "--cluster-yes"];
  return new Promise((resolve, reject) => {
    execFile("redis-cli", args, { timeout: timeoutMs, env: { ...process.env, NO_COLOR: "1" } }, (error, stdout, stderr) => {
      if (!error) return resolve();
      const said = `${stdout}${stderr}`.trim().split("\n").slice(-8).join("\n");
      reject(new StackError(`redis-cli --cluster create failed (${error.message.split("\n")[0]}):\n${said}`));
    });
  });
}

/** One line of CLUSTER NODES, as the stack needs it. */
export interface ClusterNodeLine {
  readonly id: string;
  readonly port: number;
  readonly role: "primary" | "replica";
  /** The primary's id, for a replica. */
  readonly primaryId: string | null;
  /** Marked failing by this node's view (`fail` or `fail?`). */
  readonly failing: boolean;
  /** Slot ranges a primary serves, [first, last]. */
  readonly slots: readonly (readonly [number, number])[];
}

/** CLUSTER NODES: `<id> <ip:port@bus> <flags> <primary> <ping> <pong> <epoch> <link> <slot>…`. */
export function parseClusterNodes(text: string): ClusterNodeLine[] {
  return text
    .split("\n")
    .map((line) => line.trim().split(" "))
    .filter((f) => f.length >= 8)
    .map(([id = "", address = "", flags = "", primary = "", , , , , ...slots]) => {
      const flagSet = new Set(flags.split(","));
      return {
        id,
        port: Number(/:(\d+)@/.exec(address)?.[1] ?? 0),
        role: flagSet.has("master") ? ("primary" as const) : ("replica" as const),
        primaryId: primary === "-" ? null : primary,
        failing: flagSet.has("fail") || flagSet.has("fail?"),
        slots: slots
          .filter((s) => /^\d+(-\d+)?$/.test(s))
          .map((s) => {
            const [first, last = first] = s.split("-").map(Number);
            return [first!, last!] as const;
          }),
      };
    });
}

/** Who is whose: each member's role, its primary (by member index) and the slots it serves. */
export interface ClusterRoles {
  readonly members: readonly { readonly index: number; readonly role: "primary" | "replica"; readonly replicaOf: number | null; readonly slots: string; readonly failing: boolean }[];
}

/** The cluster as the first member that answers sees it. */
export async function clusterRoles(members: readonly MemberConfig[]): Promise<ClusterRoles | null> {
  for (const m of members) {
    const reply = await redisReply(m.host, m.port, ["CLUSTER", "NODES"], 500);
    if (typeof reply !== "string") continue;
    const lines = parseClusterNodes(reply);
    const indexOf = (port: number | undefined) => members.find((x) => x.port === port)?.index ?? null;
    return {
      members: lines
        .map((line) => ({
          index: indexOf(line.port) ?? 0,
          role: line.role,
          replicaOf: line.primaryId ? indexOf(lines.find((p) => p.id === line.primaryId)?.port) : null,
          slots: line.slots.map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`)).join(","),
          failing: line.failing,
        }))
        .filter((line) => line.index > 0)
        .sort((a, b) => a.index - b.index),
    };
  }
  return null;
}

/** `INFO` fields of one member. */
async function info(m: MemberConfig, section: string): Promise<Map<string, string>> {
  const reply = await redisReply(m.host, m.port, ["INFO", section], 500);
  const map = new Map<string, string>();
  if (typeof reply === "string") {
    for (const line of reply.split("\r\n")) {
      const at = line.indexOf(":");
      if (at > 0) map.set(line.slice(0, at), line.slice(at + 1));
    }
  }
  return map;
}

/** Whole and healthy: every member says the cluster is ok, half are primaries, and every replica is linked. */
export async function clusterServes(members: readonly MemberConfig[]): Promise<boolean> {
  const views = await Promise.all(members.map(async (m) => ({ replication: await info(m, "replication"), state: await redisReply(m.host, m.port, ["CLUSTER", "INFO"], 500) })));
  if (!views.every((v) => typeof v.state === "string" && /^cluster_state:ok\r?$/m.test(v.state))) return false;
  const primaries = views.filter((v) => v.replication.get("role") === "master").length;
  const linked = views.filter((v) => v.replication.get("role") === "slave" && v.replication.get("master_link_status") === "up").length;
  return primaries === members.length / 2 && linked === members.length / 2;
}

/** Whether slot ranges as ClusterRoles lists them ("0-5460,5462") include `slot`. */
export function servesSlot(slots: string, slot: number): boolean {
  return slots.split(",").filter((range) => /^\d+(-\d+)?$/.test(range)).some((range) => {
    const [first = -1, last = first] = range.split("-").map(Number);
    return first <= slot && slot <= last;
  });
}

export const redisCluster = clusterService({
  name: "redis-cluster",
  portVar: "REDIS_CLUSTER_NODES",
  what: "redis cluster node",
  marker: "[cluster]",
  members: ({ cfg }) => cfg.redisCluster,
  ports: (m) => [m.port, busPort(m)],
  command: (m, dir) => ({ command: "redis-server", args: clusterNodeArgs(m, dir) }),
  answers: (m) => redisPing(m.host, m.port, 300),
  form: (members) => createCluster(members),
  serves: clusterServes,
  details: async (members) => ({ roles: (await clusterRoles(members))?.members ?? null }),
  // NOW: a primary does not wait for its replicas to catch up (they may be stopping beside it).
  stopMember: async (m) => void (await redisCommand(m.host, m.port, ["SHUTDOWN", "NOSAVE", "NOW"], 3000)),
  readyTimeoutMs: 20_000,
  routes: (cluster: ClusterView) => [
    {
      method: "POST",
      path: /^\/redis-cluster\/(\d+)\/failover$/,
      async handle([n], body) {
        const m = cluster.member(n);
        const mode = (body as { mode?: unknown } | undefined)?.mode;
        if (mode !== undefined && mode !== "force" && mode !== "takeover") {
          throw new HttpError(422, "invalid_failover", 'mode is "force" (no handshake with the primary) or "takeover" (no vote either); none: a coordinated failover');
        }
        if (!cluster.running(m)) throw new HttpError(409, "not_running", `redis cluster node ${m.index} is not running`);
        if ((await info(m, "replication")).get("role") !== "slave") {
          throw new HttpError(409, "not_a_replica", `redis cluster node ${m.index} is a primary: fail over one of its replicas`);
        }
        const reply = await redisReply(m.host, m.port, ["CLUSTER", "FAILOVER", ...(mode ? [mode.toUpperCase()] : [])], 2000);
        if (reply instanceof Error || reply === undefined) throw new HttpError(409, "failover_refused", `CLUSTER FAILOVER: ${reply?.message ?? "no answer"}`);
        // Done when the cluster says so (the first member that answers), not only the promoted node.
        const promoted = await waitFor(async () => (await clusterRoles(cluster.members))?.members.some((r) => r.index === m.index && r.role === "primary" && r.slots !== "") ?? false, 10_000, 100);
        if (!promoted) throw new HttpError(504, "failover_timeout", `redis cluster node ${m.index} was not promoted within 10 s`);
        say(`… redis-cluster ${m.addr} promoted (CLUSTER FAILOVER${mode ? ` ${mode.toUpperCase()}` : ""}, control API)`);
        return { "redis-cluster": m.index, addr: m.addr, role: "primary", roles: (await clusterRoles(cluster.members))?.members ?? null };
      },
    },
    {
      method: "GET",
      path: /^\/redis-cluster\/owner\/([^/]+)$/,
      async handle([rawKey]) {
        const key = decodeURIComponent(rawKey ?? "");
        for (const m of cluster.members) {
          const slot = await redisReply(m.host, m.port, ["CLUSTER", "KEYSLOT", key], 500);
          const roles = typeof slot === "number" ? await clusterRoles(cluster.members) : null;
          if (typeof slot !== "number" || !roles) continue;
          const primary = roles.members.find((r) => r.role === "primary" && servesSlot(r.slots, slot))?.index ?? null;
          const replicas = roles.members.filter((r) => primary !== null && r.replicaOf === primary).map((r) => r.index);
          return { key, slot, primary, replicas };
        }
        throw new HttpError(503, "cluster_unavailable", "no redis cluster node answered");
      },
    },
  ],
});
