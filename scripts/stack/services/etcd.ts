// A three-member etcd cluster (Debian's etcd-server) for the `etcd` strategy: each member's client
// port comes from ETCD_ENDPOINTS and its peer port is the next one. Raft heartbeats every 100 ms
// and elects within 1 s, so a stopped leader is replaced quickly; the smallest lease etcd grants
// is then 2 s (1.5 × the election timeout, rounded up to a second).

import type { MemberConfig } from "../config";
import { clusterService } from "../cluster";
import { connectHost, httpStatus, portAnswers } from "../ports";

export const peerPort = (m: MemberConfig) => m.port + 1;

/** The member that leads now, as the members' own status says (etcd's HTTP gateway); undefined if none says. */
export async function etcdLeader(members: readonly MemberConfig[]): Promise<MemberConfig | undefined> {
  const statuses = await Promise.all(
    members.map(async (m) => {
      try {
        const response = await fetch(`http://${connectHost(m.host)}:${m.port}/v3/maintenance/status`, { method: "POST", body: "{}", signal: AbortSignal.timeout(1000) });
        const status = (await response.json()) as { header?: { member_id?: string }; leader?: string };
        return { member: m, id: status.header?.member_id, leader: status.leader };
      } catch {
        return { member: m, id: undefined, leader: undefined };
      }
    }),
  );
  const leader = statuses.find((s) => s.leader)?.leader;
  return statuses.find((s) => s.id !== undefined && s.id === leader)?.member;
}

export const etcd = clusterService({
  name: "etcd",
  portVar: "ETCD_ENDPOINTS",
  what: "etcd member",
  marker: "etcd --name locklab-",
  members: ({ cfg }) => cfg.etcd,
  ports: (m) => [m.port, peerPort(m)],
  command(m, dir, members) {
    const peers = members.map((p) => `locklab-${p.index}=http://${p.host}:${peerPort(p)}`).join(",");
    return {
      command: "etcd",
      args: [
        "--name", `locklab-${m.index}`,
        "--data-dir", `${dir}/data`,
        "--listen-client-urls", `http://${m.host}:${m.port}`,
        "--advertise-client-urls", `http://${m.host}:${m.port}`,
        "--listen-peer-urls", `http://${m.host}:${peerPort(m)}`,
        "--initial-advertise-peer-urls", `http://${m.host}:${peerPort(m)}`,
        "--initial-cluster", peers,
        "--initial-cluster-token", "locklab",
        "--initial-cluster-state", "new",
        "--heartbeat-interval", "100",
        "--election-timeout", "1000",
        "--quota-backend-bytes", String(64 * 1024 * 1024),
        "--logger", "zap",
        "--log-outputs", "stderr",
      ],
    };
  },
  answers: (m) => portAnswers(m.host, m.port, 300),
  // A leader told to stop first hands its leadership to a peer and waits until one takes it; with
  // every member stopping at once none does, and it waited out etcd's request timeout (7 s here),
  // most of the stack's whole stop. Stopped after the others, it has nobody to hand it to.
  lastToStop: etcdLeader,
  async serves(members) {
    const health = await Promise.all(members.map((m) => httpStatus(`http://${m.host}:${m.port}/health`, 1000)));
    return health.some((status) => status === 200);
  },
  readyTimeoutMs: 20_000,
});
