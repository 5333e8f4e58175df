import { getEnv } from "../env";
import { faultOfControlPath, recordFault } from "../timeline/faults";
import { AppError } from "../errors";

/**
 * The stack runner's fault-control API (scripts/stack/control.ts): stop/start Redis nodes, pause,
 * resume or kill app instances, undo everything. Only admins reach it, through the app.
 */
export class StackControlError extends AppError {
  override name = "StackControlError";
  readonly status = 503;
  readonly code = "stack_control_unavailable";
}

/** A lock service's cluster in the stack runner's /status (scripts/stack/cluster.ts). */
export interface ClusterStatus {
  serves: boolean;
  members: { index: number; addr: string; up: boolean; paused: boolean; pid: number | null }[];
}

export interface StackStatus {
  redis: { index: number; addr: string; up: boolean; managed: boolean }[];
  "sentinel-redis"?: ClusterStatus;
  sentinel?: ClusterStatus;
  zookeeper?: ClusterStatus;
  etcd?: ClusterStatus;
  apps: { index: number; port: number; instance: string; state: string; pid?: number }[];
  postgres: { up: boolean };
  /** Where the store listens: loopback, or the LAN too (workshop mode), and the addresses to give students. */
  nginx: { up: boolean; lan?: boolean; storeUrls?: string[]; adminFromLan?: boolean };
}

export async function stackControl<T = unknown>(path: string, method: "GET" | "POST" = "POST"): Promise<T> {
  const env = getEnv();
  let response: Response;
  try {
    response = await fetch(`${env.STACK_CONTROL_URL}${path}`, {
      method,
      headers: { "x-stack-token": env.STACK_CONTROL_TOKEN },
      signal: AbortSignal.timeout(60_000),
    });
  } catch (error) {
    throw new StackControlError(`the stack runner's control API does not answer (${(error as Error).message}); start the stack with npm run demo`);
  }
  const body = (await response.json().catch(() => ({}))) as T & { message?: string };
  if (!response.ok) throw new StackControlError(`stack control ${path}: ${response.status} ${body.message ?? ""}`.trim());
  const fault = method === "POST" ? faultOfControlPath(path) : undefined;
  if (fault) await recordFault(fault.kind, fault.note).catch(() => {});
  return body;
}

export const getStackStatus = () => stackControl<StackStatus>("/status", "GET");
