import { getRedis } from "../redis";
import { SALE_KEY } from "../sale/keys";
import { appRecorder } from "./holder-timeline";

/**
 * Marks a fault on the current sale's timeline (drawn as a band across every lane): a Redis node
 * or an instance stopped, paused or killed, Postgres stopped, a delay set at a step. Best effort.
 */
export async function recordFault(kind: "fault-start" | "fault-end", note: string): Promise<void> {
  const saleId = Number(await getRedis().hget(SALE_KEY, "id").catch(() => null));
  if (saleId > 0) appRecorder().note(saleId, { kind, holder: "", note });
}

/** What a control API call does to the world, as a timeline fault; undefined for reads. */
const MEMBER_NAMES = { "sentinel-redis": "Sentinel-managed Redis", sentinel: "Sentinel", zookeeper: "ZooKeeper member", etcd: "etcd member" } as const;

export function faultOfControlPath(path: string): { kind: "fault-start" | "fault-end"; note: string } | undefined {
  const match = /^\/(redis|apps|postgres|sentinel-redis|sentinel|zookeeper|etcd)(?:\/(\d+))?\/(stop|start|pause|resume|kill)$/.exec(path);
  if (path === "/reset-faults") return { kind: "fault-end", note: "every fault put back" };
  if (!match) return undefined;
  const [, target, index, action] = match;
  const what = target === "redis" ? `Redis node ${index}` : target === "apps" ? `app-${index}` : target === "postgres" ? "Postgres" : `${MEMBER_NAMES[target as keyof typeof MEMBER_NAMES]} ${index}`;
  const done = { stop: "stopped", start: "started", pause: "paused", resume: "resumed", kill: "killed" }[action as "stop"];
  return { kind: action === "start" || action === "resume" ? "fault-end" : "fault-start", note: `${what} ${done}` };
}
