// A Redis primary with one asynchronous replica (SENTINEL_REDIS, primary first) watched by three
// Sentinels (SENTINELS, quorum 2) for the `sentinel` strategies: Debian's redis-server and
// redis-sentinel. A primary that stops answering for a second is failed over to the replica.
// Two services, so the control API names a Redis member (/sentinel-redis/<n>/…) apart from a
// Sentinel (/sentinel/<n>/…); after a failover the old primary comes back as a replica.

import fs from "node:fs";
import path from "node:path";
import type { MemberConfig } from "../config";
import { clusterService } from "../cluster";
import { waitFor } from "../processes";
import { redisPing, redisReply, redisShutdown } from "../resp";

export const SENTINEL_DOWN_AFTER_MS = 1000;

const redisArgs = (m: MemberConfig, dir: string) => [
  "--port", String(m.port),
  "--bind", m.host,
  "--save", "",
  "--appendonly", "no",
  "--dir", dir,
  "--logfile", "",
  // A replica syncs at once rather than after diskless replication's default 5 s wait.
  "--repl-diskless-sync-delay", "0",
];

/** `SENTINEL MASTER` or `INFO` fields as a map. */
function fields(reply: unknown): Map<string, string> {
  const map = new Map<string, string>();
  if (Array.isArray(reply)) for (let i = 0; i + 1 < reply.length; i += 2) map.set(String(reply[i]), String(reply[i + 1]));
  else if (typeof reply === "string") for (const line of reply.split("\r\n")) {
    const at = line.indexOf(":");
    if (at > 0) map.set(line.slice(0, at), line.slice(at + 1));
  }
  return map;
}

/** The primary the first Sentinel that answers names, if any does. */
export async function currentPrimary(sentinels: readonly MemberConfig[], master: string): Promise<{ host: string; port: number } | undefined> {
  for (const s of sentinels) {
    const reply = await redisReply(s.host, s.port, ["SENTINEL", "GET-MASTER-ADDR-BY-NAME", master], 300);
    if (Array.isArray(reply) && reply.length === 2) return { host: String(reply[0]), port: Number(reply[1]) };
  }
  return undefined;
}

/** A replica is linked to its primary. */
async function sentinelRedisServes(members: readonly MemberConfig[]): Promise<boolean> {
  const infos = await Promise.all(members.map((m) => redisReply(m.host, m.port, ["INFO", "replication"], 500)));
  return infos.some((info) => fields(info).get("master_link_status") === "up");
}

export const sentinelRedis = clusterService({
  name: "sentinel-redis",
  portVar: "SENTINEL_REDIS",
  what: "sentinel-managed redis",
  marker: "redis-server",
  members: ({ cfg }) => cfg.sentinelRedis,
  async command(m, dir, members, { cfg }) {
    // At the stack's start the first member is the primary; a member started again after a
    // failover rejoins as a replica of whichever primary the Sentinels name now.
    const named = await currentPrimary(cfg.sentinels, cfg.sentinelMaster);
    const primary = named ?? members[0]!;
    const isPrimary = primary.host === m.host && primary.port === m.port;
    const replicaOf = isPrimary ? [] : ["--replicaof", primary.host, String(primary.port)];
    return { command: "redis-server", args: [...redisArgs(m, dir), ...replicaOf] };
  },
  answers: (m) => redisPing(m.host, m.port, 300),
  serves: (members) => sentinelRedisServes(members),
  stopMember: async (m) => void (await redisShutdown(m.host, m.port)),
  readyTimeoutMs: 15_000,
});

export const sentinel = clusterService({
  name: "sentinel",
  portVar: "SENTINELS",
  what: "sentinel",
  marker: "redis-sentinel",
  members: ({ cfg }) => cfg.sentinels,
  /**
   * Sentinels learn a primary's replicas from its INFO, which they ask for every 10 s: started
   * before the replica is linked, they would not know it for up to 10 s. So they start once the
   * pair (started beside them) is linked, or after 15 s regardless.
   */
  async prepare(_members, { cfg }) {
    await waitFor(() => sentinelRedisServes(cfg.sentinelRedis), 15_000, 100);
  },
  command(m, dir, _members, { cfg }) {
    const primary = cfg.sentinelRedis[0]!;
    const file = path.join(dir, "sentinel.conf");
    // Sentinel rewrites its own file as it learns the topology: a fresh one at every stack start.
    if (!fs.existsSync(file)) {
      fs.writeFileSync(
        file,
        [
          `port ${m.port}`,
          `bind ${m.host}`,
          `dir ${dir}`,
          `sentinel monitor ${cfg.sentinelMaster} ${primary.host} ${primary.port} 2`,
          `sentinel down-after-milliseconds ${cfg.sentinelMaster} ${SENTINEL_DOWN_AFTER_MS}`,
          // A Sentinel tries a failover of the same primary again only after twice this: the lab
          // fails over once per case, a few seconds apart.
          `sentinel failover-timeout ${cfg.sentinelMaster} 2000`,
          `sentinel parallel-syncs ${cfg.sentinelMaster} 1`,
          "",
        ].join("\n"),
      );
    }
    return { command: "redis-sentinel", args: [file] };
  },
  answers: (m) => redisPing(m.host, m.port, 300),
  /** Every Sentinel knows the primary, a replica and the two other Sentinels: a failover can happen. */
  async serves(members) {
    const views = await Promise.all(members.map((m) => redisReply(m.host, m.port, ["SENTINEL", "MASTERS"], 500)));
    return views.every((view) => {
      const master = Array.isArray(view) ? fields(view[0]) : new Map<string, string>();
      return Number(master.get("num-slaves") ?? 0) >= 1 && Number(master.get("num-other-sentinels") ?? 0) >= members.length - 1;
    });
  },
  stopMember: async (m) => void (await redisShutdown(m.host, m.port)),
  readyTimeoutMs: 20_000,
});
