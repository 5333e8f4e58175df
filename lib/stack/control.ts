import { getEnv } from "../env";
import { faultsOfControlCall, recordFault } from "../timeline/faults";
import { AppError } from "../errors";

/**
 * The stack runner's fault-control API (scripts/stack/control.ts): stop/start Redis nodes, pause,
 * resume or kill app instances, undo everything. Only admins reach it, through the app.
 */
export class StackControlError extends AppError {
  override name = "StackControlError";
  readonly status = 503;
  readonly code = "stack_control_unavailable";
  constructor(
    message: string,
    /**
     * Why, for the translated message (and the JSON body): `no_answer`, or the code and status
     * the runner answered with (clock_unavailable, network_unavailable, stopping…).
     */
    override readonly details: { readonly runnerCode: string; readonly runnerStatus?: number } = { runnerCode: "no_answer" },
  ) {
    super(message);
  }
}

/**
 * The stack runner refused a request as given (422, 409): its status and code pass through, and
 * `apiErrors` translates the runner's codes (not_running, unknown_client…); a code it does not
 * know yet stays in the runner's English.
 */
export class StackControlRefusedError extends AppError {
  override name = "StackControlRefusedError";
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

/** A lock service's cluster in the stack runner's /status (scripts/stack/cluster.ts). */
export interface ClusterStatus {
  serves: boolean;
  members: { index: number; addr: string; up: boolean; paused: boolean; pid: number | null }[];
}

/** One cut of a grudge (scripts/stack/network.ts): the client's traffic to the server dropped, one way or both. */
export interface Cut {
  readonly client: string;
  readonly server: string;
  readonly direction: "both" | "to-server" | "to-client";
}

/** The stack runner's GET /network: the links it can cut and the cuts in force. */
export interface NetworkStatus {
  readonly available: boolean;
  /** Why not, when not: the runner's English, and a code the pages translate (scripts/stack/services/network.ts). */
  readonly reason?: string;
  readonly reasonCode?: "not_root" | "no_nft" | "nft_failed" | "nft_ended" | "not_started";
  readonly cuts: readonly Cut[];
  readonly since?: string | null;
  readonly clients: readonly { readonly name: string; readonly gid: number }[];
  readonly servers: readonly { readonly name: string; readonly ports: readonly number[] }[];
  readonly aliases?: Readonly<Record<string, string>>;
}

/** A Redis node's wall clock under libfaketime: how far ahead it is and how fast it runs. */
export interface ClockStatus {
  readonly offsetS: number;
  readonly rate: number;
}

export interface StackStatus {
  redis: { index: number; addr: string; up: boolean; managed: boolean; clock?: ClockStatus | null }[];
  network?: { cuts: readonly Cut[]; available?: boolean };
  "sentinel-redis"?: ClusterStatus;
  sentinel?: ClusterStatus;
  "redis-cluster"?: ClusterStatus;
  zookeeper?: ClusterStatus;
  etcd?: ClusterStatus;
  pgbouncer?: ClusterStatus;
  apps: { index: number; port: number; instance: string; state: string; pid?: number }[];
  postgres: { up: boolean };
  /** Where the store listens: loopback, or the LAN too (workshop mode), and the addresses to give students. */
  nginx: { up: boolean; lan?: boolean; storeUrls?: string[]; adminFromLan?: boolean; peoplePerAddress?: number };
}

export async function stackControl<T = unknown>(path: string, method: "GET" | "POST" = "POST", body?: unknown): Promise<T> {
  const env = getEnv();
  let response: Response;
  try {
    response = await fetch(`${env.STACK_CONTROL_URL}${path}`, {
      method,
      headers: { "x-stack-token": env.STACK_CONTROL_TOKEN, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(60_000),
    });
  } catch (error) {
    throw new StackControlError(`the stack runner's control API does not answer (${(error as Error).message}); start the stack with npm run demo`);
  }
  const answer = (await response.json().catch(() => ({}))) as T & { message?: string; code?: string };
  // The runner refused what was asked (an unknown link, a bad clock change): the caller's mistake, said as the runner said it.
  if (response.status === 409 || response.status === 422) throw new StackControlRefusedError(response.status, answer.code ?? "refused", answer.message ?? `stack control ${path} refused`);
  if (!response.ok) {
    throw new StackControlError(`stack control ${path}: ${response.status} ${answer.message ?? ""}`.trim(), { runnerCode: answer.code ?? "unknown", runnerStatus: response.status });
  }
  const faults = method === "POST" ? faultsOfControlCall(path, body) : [];
  for (const fault of faults) await recordFault(fault.kind, fault.note, fault.instance).catch(() => {});
  return answer;
}

export const getStackStatus = () => stackControl<StackStatus>("/status", "GET");
export const getNetwork = () => stackControl<NetworkStatus>("/network", "GET");

/** Sizes nginx's per-address ceilings for `people` behind one address (the room's setting); what nginx is sized for now. */
export const sizeRoomLimits = (people: number) => stackControl<{ peoplePerAddress: number }>(`/nginx/room/${people}`);
