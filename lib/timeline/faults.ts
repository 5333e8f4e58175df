import { getRedis } from "../redis";
import { SALE_KEY } from "../sale/keys";
import { appRecorder } from "./holder-timeline";

/**
 * Marks a fault on the current sale's timeline: a Redis node or an instance stopped, paused or
 * killed, Postgres stopped, a delay set at a step, a link cut, a clock moved. Drawn as a band
 * across every lane, or, given the app instance it affects (a cut of app-1's links), across that
 * instance's lanes only. Best effort.
 */
export async function recordFault(kind: "fault-start" | "fault-end", note: string, instance?: string): Promise<void> {
  const saleId = Number(await getRedis().hget(SALE_KEY, "id").catch(() => null));
  if (saleId > 0) appRecorder().note(saleId, { kind, holder: "", note, ...(instance ? { instance } : {}) });
}

/** A control API call as timeline faults; none for reads. */
interface FaultMark {
  readonly kind: "fault-start" | "fault-end";
  readonly note: string;
  /** The app instance whose lanes it affects; absent: every lane. */
  readonly instance?: string;
}

const MEMBER_NAMES = {
  "sentinel-redis": "Sentinel-managed Redis",
  sentinel: "Sentinel",
  "redis-cluster": "Redis Cluster node",
  zookeeper: "ZooKeeper member",
  etcd: "etcd member",
  pgbouncer: "PgBouncer",
} as const;
const ARROWS = { both: "⇹", "to-server": "→", "to-client": "←" } as const;

export function faultsOfControlCall(path: string, body?: unknown): FaultMark[] {
  if (path === "/reset-faults") return [{ kind: "fault-end", note: "every fault put back" }];
  if (path === "/network/heal") return [{ kind: "fault-end", note: "every link healed" }];
  if (path === "/network/grudge") {
    const cuts = ((body as { cuts?: { client: string; server: string; direction?: keyof typeof ARROWS }[] } | undefined)?.cuts) ?? [];
    // One band per client: a cut of app-1's links shows on app-1's lanes; a server's own links across all.
    const byClient = new Map<string, string[]>();
    for (const cut of cuts) byClient.set(cut.client, [...(byClient.get(cut.client) ?? []), `${ARROWS[cut.direction ?? "both"]} ${cut.server}`]);
    return [...byClient].map(([client, links]) => ({
      kind: "fault-start" as const,
      note: `cut ${client} ${links.join(", ")}`,
      ...(/^app-\d+$/.test(client) ? { instance: client } : {}),
    }));
  }
  const clock = /^\/redis\/(\d+)\/clock$/.exec(path);
  if (clock) {
    const change = (body ?? {}) as { jumpS?: number; rate?: number; reset?: boolean };
    if (change.reset) return [{ kind: "fault-end", note: `Redis node ${clock[1]}'s clock reset` }];
    const what = change.jumpS !== undefined ? `jumped ${change.jumpS > 0 ? "+" : ""}${change.jumpS} s` : `runs ×${change.rate}`;
    return [{ kind: "fault-start", note: `Redis node ${clock[1]}'s clock ${what}` }];
  }
  const failover = /^\/redis-cluster\/(\d+)\/failover$/.exec(path);
  if (failover) return [{ kind: "fault-start", note: `Redis Cluster node ${failover[1]} took over its primary's slots (CLUSTER FAILOVER)` }];
  const match = /^\/(redis|apps|postgres|sentinel-redis|sentinel|redis-cluster|zookeeper|etcd|pgbouncer)(?:\/(\d+))?\/(stop|start|pause|resume|kill)$/.exec(path);
  if (!match) return [];
  const [, target, index, action] = match;
  const member = MEMBER_NAMES[target as keyof typeof MEMBER_NAMES];
  const what = target === "redis" ? `Redis node ${index}` : target === "apps" ? `app-${index}` : target === "postgres" ? "Postgres"
    : target === "pgbouncer" ? member : index === undefined ? `every ${member}` : `${member} ${index}`;
  const done = { stop: "stopped", start: "started", pause: "paused", resume: "resumed", kill: "killed" }[action as "stop"];
  return [{ kind: action === "start" || action === "resume" ? "fault-end" : "fault-start", note: `${what} ${done}` }];
}
