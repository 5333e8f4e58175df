import { getEnv } from "../env";
import type { FaultAction } from "./fault-action";
import { CLUSTER_SERVICES, type ClusterService } from "./members";
import { clearFault, getFaults, setFault, type FaultDelays } from "./faults";
import { getStackStatus, stackControl, type StackStatus } from "../stack/control";

export interface ActiveFaults {
  readonly delays: FaultDelays;
  readonly stoppedRedisNodes: number[];
  readonly pausedApps: string[];
  readonly stoppedApps: string[];
  /** Members of the lock services' clusters that are stopped or paused. */
  readonly members: { readonly service: ClusterService; readonly index: number; readonly addr: string; readonly state: "stopped" | "paused" }[];
  /** False when the stack runner's control API does not answer (faults unknown). */
  readonly stackReachable: boolean;
  readonly any: boolean;
}

/** Every fault in force right now, for the dashboard's always-visible faults panel. */
export async function getActiveFaults(): Promise<ActiveFaults> {
  const [delays, status] = await Promise.all([getFaults(), getStackStatus().catch((): StackStatus | undefined => undefined)]);
  const stoppedRedisNodes = status?.redis.filter((node) => !node.up).map((node) => node.index) ?? [];
  const pausedApps = status?.apps.filter((app) => app.state === "paused").map((app) => app.instance) ?? [];
  const stoppedApps = status?.apps.filter((app) => app.state === "stopped").map((app) => app.instance) ?? [];
  const members: ActiveFaults["members"] = CLUSTER_SERVICES.flatMap((service) =>
    (status?.[service]?.members ?? []).flatMap((m) => {
      const state = m.paused ? "paused" : m.pid === null ? "stopped" : undefined;
      return state ? [{ service, index: m.index, addr: m.addr, state } as const] : [];
    }));
  const any = Object.keys(delays).length > 0 || stoppedRedisNodes.length > 0 || pausedApps.length > 0 || stoppedApps.length > 0 || members.length > 0;
  return { delays, stoppedRedisNodes, pausedApps, stoppedApps, members, stackReachable: Boolean(status), any };
}

/** True when the action would stop or freeze the instance that runs it (do it after answering). */
export function targetsThisInstance(action: FaultAction): boolean {
  return (action.action === "pause-app" || action.action === "kill-app") && getEnv().APP_INSTANCE === `app-${action.app}`;
}

export async function applyFaultAction(action: FaultAction): Promise<void> {
  switch (action.action) {
    case "stop-redis":
      return void (await stackControl(`/redis/${action.node}/stop`));
    case "start-redis":
      return void (await stackControl(`/redis/${action.node}/start`));
    case "pause-app":
      return void (await stackControl(`/apps/${action.app}/pause`));
    case "resume-app":
      return void (await stackControl(`/apps/${action.app}/resume`));
    case "kill-app":
      return void (await stackControl(`/apps/${action.app}/kill`));
    case "set-delay":
      return setFault(action.point, action.ms, action.times);
    case "clear-delay":
      return clearFault(action.point);
    case "member":
      return void (await stackControl(`/${action.service}/${action.member}/${action.op}`));
  }
}
