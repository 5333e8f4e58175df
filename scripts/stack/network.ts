// Per-link partitions as real packet drops, Jepsen style: a link is (client, server), a cut drops
// one direction of it or both, and a grudge is the set of cuts in force. This module is the pure
// part — which process is which client, what a grudge may say, and the nftables rules that say it;
// nft-session.ts owns the `nft` process and services/network.ts wires both into the stack.
//
// How a client is told apart: every stack child runs with a group id of its own (CLIENT_GID_BASE,
// uid stays root so file access is unchanged), and a rule on the output hook stamps each new TCP
// connection with the gid of the socket that opened it (`ct mark`). The cuts then match a
// connection's stamp, its server port and its conntrack direction (original = client → server,
// reply = server → client), so they need no knowledge of ephemeral ports and keep cutting a
// connection whatever its packets carry later (pure ACKs, retransmissions, the FIN of a closed
// socket). They drop on the input hook: the packet has left its sender as on a real wire, so the
// sender's TCP retransmits on its own timer rather than being told at once that the send failed.

import { HttpError } from "./errors";

export const CUT_DIRECTIONS = ["both", "to-server", "to-client"] as const;
export type CutDirection = (typeof CUT_DIRECTIONS)[number];

export interface Cut {
  readonly client: string;
  readonly server: string;
  readonly direction: CutDirection;
}

/** A process that opens connections: its sockets carry its group id. */
export interface LinkClient {
  readonly name: string;
  readonly gid: number;
}

/** Something that listens: a cut to it drops the traffic of these ports. */
export interface LinkServer {
  readonly name: string;
  readonly ports: readonly number[];
  /** The client that is this server's own process (a member's peer ports), so it cannot be cut from itself. */
  readonly process?: string;
  /** Peer ports of a cluster member (zookeeper, etcd): what `isolate` cuts. */
  readonly peerGroup?: string;
}

export interface LinkTopology {
  readonly clients: readonly LinkClient[];
  readonly servers: readonly LinkServer[];
}

/**
 * Each role's group ids: role base + member index (1-based). A fixed range nothing on a stock
 * Debian machine uses (system groups stay below 1000, users' from 1000 up, nogroup is 65534).
 */
export const CLIENT_GID_BASE = Object.freeze({
  app: 61000,
  sentinel: 61100,
  "sentinel-redis": 61200,
  zookeeper: 61300,
  etcd: 61400,
  redis: 61500,
  "redis-cluster": 61600,
  pgbouncer: 61700,
} as const);
export type ClientRole = keyof typeof CLIENT_GID_BASE;

/** The lowest and highest gid a stack child may carry: the marking rules' range. */
export const GID_RANGE = Object.freeze({ first: 61000, last: 61799 });

export function roleGid(role: ClientRole, index: number): number {
  if (!Number.isInteger(index) || index < 1 || index > 99) throw new RangeError(`${role} index ${index} is not 1..99`);
  return CLIENT_GID_BASE[role] + index;
}

/**
 * The gid a stack child is spawned with: its role's, when this process may set one (root); none
 * otherwise, and then no link can be cut (the network service says so).
 */
export function spawnGid(role: ClientRole, index: number, isRoot = process.getuid?.() === 0): number | undefined {
  return isRoot ? roleGid(role, index) : undefined;
}

/** nft names: the table's own and the chains'. */
export const TABLE_NAME_PATTERN = /^[a-z][a-z0-9_]{0,30}$/;
export const CHAINS = Object.freeze({ clients: "clients", cuts: "cuts", sync: "sync" });

export interface NetworkOptions {
  /**
   * The nft table (family inet) the stack owns. Tests use `locklab_dev_…` so they never touch a
   * running stack's.
   * @default "locklab"
   */
  readonly table: string;
  /** The most cuts one grudge may hold after expansion. @default 500 */
  readonly maxCuts: number;
}

export const DEFAULT_NETWORK_OPTIONS: NetworkOptions = Object.freeze({ table: "locklab", maxCuts: 500 });

export function checkTableName(table: string): string {
  if (!TABLE_NAME_PATTERN.test(table)) throw new RangeError(`nft table name "${table}" must match ${TABLE_NAME_PATTERN}`);
  return table;
}

// ---------------------------------------------------------------------------------------------
// rendering

/** `{ 12889, 13889 }` for several ports, `7001` for one. */
function portSet(ports: readonly number[]): string {
  return ports.length === 1 ? String(ports[0]) : `{ ${ports.join(", ")} }`;
}

/**
 * The commands that create the table: owned by the nft process that runs them, so the kernel
 * deletes it, and every cut, when that process ends, however it ends. One transaction.
 */
export function renderTable(table: string, topology: LinkTopology): string {
  const t = `inet ${checkTableName(table)}`;
  const stamps = topology.clients.map(
    (c) => `add rule ${t} ${CHAINS.clients} ct state new meta l4proto tcp meta skgid ${c.gid} ct mark set ${c.gid} comment "${c.name}"`,
  );
  return [
    `add table ${t} { flags owner; }`,
    // mangle: before any filter chain, so a connection is stamped on its very first packet (the SYN).
    `add chain ${t} ${CHAINS.clients} { type filter hook output priority mangle; policy accept; }`,
    `add chain ${t} ${CHAINS.cuts} { type filter hook input priority filter; policy accept; }`,
    // No hook: an empty chain listed after each command, so its answer marks where the command's ends.
    `add chain ${t} ${CHAINS.sync}`,
    ...stamps,
  ].join("; ");
}

/** The rules of one cut: one per direction it drops. */
export function renderCut(table: string, topology: LinkTopology, cut: Cut): string[] {
  const t = `inet ${checkTableName(table)}`;
  const client = topology.clients.find((c) => c.name === cut.client);
  const server = topology.servers.find((s) => s.name === cut.server);
  if (!client || !server) throw new RangeError(`no link ${cut.client} → ${cut.server} in this topology`);
  const ports = portSet(server.ports);
  const rules: string[] = [];
  if (cut.direction !== "to-client") {
    rules.push(`add rule ${t} ${CHAINS.cuts} ct mark ${client.gid} ct direction original tcp dport ${ports} drop comment "${client.name} -> ${server.name}"`);
  }
  if (cut.direction !== "to-server") {
    rules.push(`add rule ${t} ${CHAINS.cuts} ct mark ${client.gid} ct direction reply tcp sport ${ports} drop comment "${server.name} -> ${client.name}"`);
  }
  return rules;
}

/** The whole grudge as one transaction: the previous cuts go and these come in the same instant. */
export function renderGrudge(table: string, topology: LinkTopology, cuts: readonly Cut[]): string {
  const t = `inet ${checkTableName(table)}`;
  return [`flush chain ${t} ${CHAINS.cuts}`, ...cuts.flatMap((c) => renderCut(table, topology, c))].join("; ");
}

// ---------------------------------------------------------------------------------------------
// what a grudge may say

function unprocessable(code: string, message: string): HttpError {
  return new HttpError(422, code, message);
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A member's isolation from its peers: it reaches none of their peer ports and none reaches its
 * own, both ways (clients such as the apps still reach it: the stale-read lesson needs them to).
 */
export function isolationCuts(topology: LinkTopology, member: string): Cut[] {
  const own = topology.servers.find((s) => s.peerGroup && s.process === member);
  if (!own) {
    const members = topology.servers.filter((s) => s.peerGroup).map((s) => s.process);
    throw unprocessable("cannot_isolate", `"${member}" is not a cluster member with peers; isolate one of: ${members.join(", ")}`);
  }
  const others = topology.servers.filter((s) => s.peerGroup === own.peerGroup && s.process !== member);
  return others.flatMap((other) => [
    { client: member, server: other.name, direction: "both" as const },
    { client: other.process ?? "", server: own.name, direction: "both" as const },
  ]);
}

/** Two cuts of one link make one: to-server and to-client together are both. */
function mergeDirections(a: CutDirection, b: CutDirection): CutDirection {
  return a === b ? a : "both";
}

/**
 * The cuts a POST /network/grudge body asks for, checked against the stack's links: `{ cuts: [{
 * client, server, direction? }], isolate?: [member] }`. `aliases` names what a role means right
 * now (primary → sentinel-redis-2 after a failover); the cut binds to that process and stays with
 * it. Duplicates merge; the result is sorted, so the same grudge always renders the same rules.
 */
export function parseGrudge(
  body: unknown,
  topology: LinkTopology,
  aliases: Readonly<Record<string, string>> = {},
  { maxCuts }: Pick<NetworkOptions, "maxCuts"> = DEFAULT_NETWORK_OPTIONS,
): Cut[] {
  if (!isRecord(body)) throw unprocessable("invalid_grudge", 'send a JSON object: { "cuts": [{ "client", "server", "direction" }] }');
  const unknownKeys = Object.keys(body).filter((k) => k !== "cuts" && k !== "isolate");
  if (unknownKeys.length) throw unprocessable("invalid_grudge", `unknown field ${unknownKeys.map((k) => `"${k}"`).join(", ")}: a grudge has "cuts" and "isolate"`);
  const rawCuts = body.cuts ?? [];
  const rawIsolate = body.isolate ?? [];
  if (!Array.isArray(rawCuts)) throw unprocessable("invalid_grudge", '"cuts" must be an array');
  if (!Array.isArray(rawIsolate) || rawIsolate.some((m) => typeof m !== "string")) {
    throw unprocessable("invalid_grudge", '"isolate" must be an array of member names');
  }
  if (rawCuts.length + rawIsolate.length === 0) {
    throw unprocessable("invalid_grudge", "a grudge needs at least one cut; POST /network/heal removes them all");
  }
  if (rawCuts.length > maxCuts) throw unprocessable("invalid_grudge", `at most ${maxCuts} cuts`);

  const clientNames = new Set(topology.clients.map((c) => c.name));
  const serverNames = new Set(topology.servers.map((s) => s.name));
  const resolve = (name: string) => aliases[name] ?? name;
  const asked: Cut[] = rawCuts.map((raw, i) => {
    if (!isRecord(raw)) throw unprocessable("invalid_grudge", `cuts[${i}] must be { client, server, direction }`);
    const { client, server, direction = "both" } = raw;
    if (typeof client !== "string" || typeof server !== "string") {
      throw unprocessable("invalid_grudge", `cuts[${i}] needs "client" and "server" names`);
    }
    if (typeof direction !== "string" || !(CUT_DIRECTIONS as readonly string[]).includes(direction)) {
      throw unprocessable("invalid_grudge", `cuts[${i}].direction must be one of ${CUT_DIRECTIONS.join(", ")}`);
    }
    const c = resolve(client);
    const s = resolve(server);
    if (!clientNames.has(c)) throw unprocessable("unknown_client", `cuts[${i}]: no client "${client}"; clients: ${[...clientNames, ...Object.keys(aliases).filter((a) => clientNames.has(aliases[a] ?? ""))].join(", ")}`);
    if (!serverNames.has(s)) throw unprocessable("unknown_server", `cuts[${i}]: no server "${server}"; servers: ${[...serverNames, ...Object.keys(aliases).filter((a) => serverNames.has(aliases[a] ?? ""))].join(", ")}`);
    return { client: c, server: s, direction: direction as CutDirection };
  });
  const isolated = (rawIsolate as string[]).flatMap((m) => isolationCuts(topology, resolve(m)));

  const merged = new Map<string, Cut>();
  for (const cut of [...asked, ...isolated]) {
    const server = topology.servers.find((s) => s.name === cut.server);
    if (cut.client === cut.server || server?.process === cut.client) {
      throw unprocessable("self_link", `${cut.client} → ${cut.server} is a process talking to itself, not a link`);
    }
    const key = `${cut.client}\u0000${cut.server}`;
    const before = merged.get(key);
    merged.set(key, before ? { ...cut, direction: mergeDirections(before.direction, cut.direction) } : cut);
  }
  if (merged.size > maxCuts) throw unprocessable("invalid_grudge", `at most ${maxCuts} cuts (this grudge expands to ${merged.size})`);
  const order = (name: string, list: readonly { readonly name: string }[]) => list.findIndex((x) => x.name === name);
  return [...merged.values()].sort(
    (a, b) => order(a.client, topology.clients) - order(b.client, topology.clients) || order(a.server, topology.servers) - order(b.server, topology.servers),
  );
}
