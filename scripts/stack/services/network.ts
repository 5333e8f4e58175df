// Per-link partitions (see ../network.ts for how a link is cut): the stack's nft table, made before
// any server or client starts and gone with the stack, and the control API's
//   GET  /network          the links, the names `primary` and `replica` stand for now, the cuts
//   POST /network/grudge   { cuts: [{ client, server, direction }], isolate?: [member] } replaces them
//   POST /network/heal     removes every cut (so does POST /reset-faults)
// Needs root (group ids for the children, nftables), the NET_ADMIN capability (a container has it
// only with --cap-add NET_ADMIN) and Debian's nftables; without them the stack runs as before and
// these routes answer 503 network_unavailable, saying why.

import fs from "node:fs";
import type { StackConfig } from "../config";
import { HttpError } from "../errors";
import { ok, say, warn } from "../log";
import {
  type Cut,
  DEFAULT_NETWORK_OPTIONS,
  type LinkServer,
  type LinkTopology,
  type NetworkOptions,
  parseGrudge,
  renderGrudge,
  renderTable,
  roleGid,
} from "../network";
import { NftSession, deleteStaleTable, findNft } from "../nft-session";
import { redisReply } from "../resp";
import type { Service, ServiceFactory } from "../service";
import { peerPort } from "./etcd";
import { busPort } from "./redis-cluster";
import { currentPrimary } from "./sentinel";
import { electionPort, quorumPort } from "./zookeeper";

/** Every link of the stack: who can be cut (the children the stack spawns with a gid) from what. */
export function stackTopology(cfg: StackConfig): LinkTopology {
  const clients = [
    ...cfg.apps.map((a) => ({ name: `app-${a.index}`, gid: roleGid("app", a.index) })),
    ...cfg.sentinels.map((m) => ({ name: `sentinel-${m.index}`, gid: roleGid("sentinel", m.index) })),
    ...cfg.sentinelRedis.map((m) => ({ name: `sentinel-redis-${m.index}`, gid: roleGid("sentinel-redis", m.index) })),
    // A cluster node as a client: its cluster bus links to its peers, and a replica's replication link.
    ...cfg.redisCluster.map((m) => ({ name: `redis-cluster-${m.index}`, gid: roleGid("redis-cluster", m.index) })),
    ...cfg.zookeeper.map((m) => ({ name: `zookeeper-${m.index}`, gid: roleGid("zookeeper", m.index) })),
    ...cfg.etcd.map((m) => ({ name: `etcd-${m.index}`, gid: roleGid("etcd", m.index) })),
    // The pooler's server connections to Postgres.
    { name: "pgbouncer", gid: roleGid("pgbouncer", 1) },
  ];
  const servers: LinkServer[] = [
    ...cfg.redis.map((n) => ({ name: `redis-${n.index}`, ports: [n.port] })),
    ...cfg.sentinelRedis.map((m) => ({ name: `sentinel-redis-${m.index}`, ports: [m.port] })),
    ...cfg.sentinels.map((m) => ({ name: `sentinel-${m.index}`, ports: [m.port] })),
    ...cfg.redisCluster.flatMap((m) => [
      { name: `redis-cluster-${m.index}`, ports: [m.port] },
      { name: `redis-cluster-${m.index}-peer`, ports: [busPort(m)], process: `redis-cluster-${m.index}`, peerGroup: "redis-cluster" },
    ]),
    ...cfg.zookeeper.flatMap((m) => [
      { name: `zookeeper-${m.index}`, ports: [m.port] },
      { name: `zookeeper-${m.index}-peer`, ports: [quorumPort(m), electionPort(m)], process: `zookeeper-${m.index}`, peerGroup: "zookeeper" },
    ]),
    ...cfg.etcd.flatMap((m) => [
      { name: `etcd-${m.index}`, ports: [m.port] },
      { name: `etcd-${m.index}-peer`, ports: [peerPort(m)], process: `etcd-${m.index}`, peerGroup: "etcd" },
    ]),
    { name: "postgres", ports: [cfg.database.port] },
    { name: "pgbouncer", ports: [cfg.pgbouncer.port] },
  ];
  return { clients, servers };
}

/**
 * What `primary` and `replica` name right now: the Sentinels' answer, else the members' own INFO
 * roles; empty when neither answers. A cut binds to the process the name meant when it was made
 * and stays with it through a failover — "cut the primary" keeps cutting the old primary.
 */
export async function sentinelAliases(cfg: StackConfig): Promise<Record<string, string>> {
  const nameOf = (host: string, port: number) =>
    cfg.sentinelRedis.find((m) => m.port === port && (m.host === host || host === "127.0.0.1" || host === "localhost"));
  let primary = await currentPrimary(cfg.sentinels, cfg.sentinelMaster).then((p) => (p ? nameOf(p.host, p.port) : undefined));
  if (!primary) {
    for (const m of cfg.sentinelRedis) {
      const info = await redisReply(m.host, m.port, ["INFO", "replication"], 300);
      if (typeof info === "string" && /^role:master\r?$/m.test(info)) primary = m;
    }
  }
  if (!primary) return {};
  const replica = cfg.sentinelRedis.find((m) => m !== primary);
  return { primary: `sentinel-redis-${primary.index}`, ...(replica ? { replica: `sentinel-redis-${replica.index}` } : {}) };
}

/** The names that stand for whichever Sentinel-managed member has that role now. */
export const ROLE_ALIASES = Object.freeze(["primary", "replica"]);

/** A grudge that names `primary` or `replica` (the Sentinels are asked only then). */
export function namesAlias(body: unknown): boolean {
  if (typeof body !== "object" || body === null) return false;
  const { cuts, isolate } = body as { cuts?: unknown; isolate?: unknown };
  const names = [
    ...(Array.isArray(cuts) ? cuts.flatMap((c) => (typeof c === "object" && c !== null ? [(c as Record<string, unknown>).client, (c as Record<string, unknown>).server] : [])) : []),
    ...(Array.isArray(isolate) ? isolate : []),
  ];
  return names.some((n) => typeof n === "string" && ROLE_ALIASES.includes(n));
}

/** Why this machine cannot cut links, or null when it can. */
/**
 * Why links cannot be cut here: a code the admin pages say in the reader's language
 * (linkGrid.why.<code>), and the runner's own English for its log and the API.
 */
export type NetworkUnavailable = { readonly code: "not_root" | "no_nft" | "nft_failed" | "nft_ended" | "not_started"; readonly text: string };

function ownStatus(): string {
  try {
    return fs.readFileSync("/proc/self/status", "utf8");
  } catch {
    return "";
  }
}

/** CAP_NET_ADMIN's bit in /proc/<pid>/status' CapEff: what nftables needs, root or not. */
const CAP_NET_ADMIN = 12n;

/**
 * Whether this process may change the packet filter; true when it cannot tell (no /proc). Root in
 * a container lacks it unless the container was started with --cap-add NET_ADMIN.
 */
export function hasNetAdmin(status = ownStatus()): boolean {
  const m = /^CapEff:\s*([0-9a-f]+)$/m.exec(status);
  return m ? ((BigInt(`0x${m[1]}`) >> CAP_NET_ADMIN) & 1n) === 1n : true;
}

function unavailableReason(nft: string | null): NetworkUnavailable | null {
  if (process.getuid?.() !== 0) return { code: "not_root", text: "the stack is not running as root (it needs group ids for its children and nftables)" };
  if (!nft) return { code: "no_nft", text: "nft is not installed (Debian's nftables package)" };
  if (!hasNetAdmin()) {
    return { code: "nft_failed", text: "this process lacks the NET_ADMIN capability; start the container with --cap-add NET_ADMIN" };
  }
  return null;
}

/** The network service, on a table of its own when a test asks (`locklab_dev_…`). */
export const networkService =
  (options: Partial<NetworkOptions> = {}): ServiceFactory =>
  ({ cfg }): Service => {
    const topology = stackTopology(cfg);
    const { table, maxCuts } = { ...DEFAULT_NETWORK_OPTIONS, ...options };
    let session: NftSession | null = null;
    let nft: string | null = null;
    let reason: NetworkUnavailable | null = null;
    let cuts: Cut[] = [];
    let since: string | null = null;

    const available = () => Boolean(session?.alive);
    const whyUnavailable = (): NetworkUnavailable =>
      reason ?? (session ? { code: "nft_ended", text: `nft ended (${session.exitReason})` } : { code: "not_started", text: "the network service has not started" });
    const requireSession = (): NftSession => {
      if (!session?.alive) throw new HttpError(503, "network_unavailable", `links cannot be cut: ${whyUnavailable().text}`);
      return session;
    };

    const summary = () => ({
      available: available(),
      ...(available() ? {} : { reason: whyUnavailable().text, reasonCode: whyUnavailable().code }),
      table: `inet ${table}`,
      // nft gone: the kernel dropped its table and every cut with it.
      cuts: available() ? cuts : [],
      since: available() ? since : null,
    });

    async function apply(next: Cut[]): Promise<void> {
      await requireSession().run(renderGrudge(table, topology, next));
      cuts = next;
      since = next.length ? new Date().toISOString() : null;
    }

    async function heal(): Promise<void> {
      if (!session?.alive || cuts.length === 0) return;
      await apply([]);
      say("… network healed (control API)");
    }

    const describe = async () => ({ ...summary(), clients: topology.clients, servers: topology.servers, aliases: await sentinelAliases(cfg) });

    return {
      name: "network",
      stage: "network",

      async claim() {
        nft = findNft();
        reason = unavailableReason(nft);
      },

      async start() {
        if (reason) {
          warn(`network faults off: ${reason.text}`);
          return;
        }
        try {
          deleteStaleTable(table, nft ?? undefined);
          session = await NftSession.open(table, renderTable(table, topology), nft ? { nft } : {});
          ok(`network faults: nft table inet ${table} (owned by nft pid ${session.pid})`);
        } catch (err) {
          reason = { code: "nft_failed", text: (err as Error).message.split("\n")[0] ?? String(err) };
          warn(`network faults off: ${reason.text}`);
        }
      },

      async stop() {
        await session?.close();
      },

      status: async () => summary(),

      routes: [
        { method: "GET", path: /^\/network$/, handle: describe },
        {
          method: "POST",
          path: /^\/network\/grudge$/,
          async handle(_params, body) {
            const aliases = namesAlias(body) ? await sentinelAliases(cfg) : {};
            if (namesAlias(body) && !aliases.primary) {
              throw new HttpError(409, "roles_unknown", "neither the Sentinels nor the members say which member is the primary now: name sentinel-redis-<n> instead");
            }
            const next = parseGrudge(body, topology, aliases, { maxCuts });
            await apply(next);
            say(`… network grudge: ${next.map((c) => `${c.client} ✂ ${c.server} (${c.direction})`).join(", ")}`);
            return describe();
          },
        },
        {
          method: "POST",
          path: /^\/network\/heal$/,
          async handle() {
            requireSession();
            await heal();
            return describe();
          },
        },
      ],

      faulted: () => available() && cuts.length > 0,

      resetFaults: heal,
    };
  };

export const network: ServiceFactory = networkService();
