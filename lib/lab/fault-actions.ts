import { getEnv } from "../env";
import type { FaultAction } from "./fault-action";
import { CLUSTER_SERVICES, type ClusterService } from "./members";
import { clearFault, getFaults, setFault, type FaultDelays } from "./faults";
import { getNetwork, getStackStatus, stackControl, type ClockStatus, type Cut, type NetworkStatus, type StackStatus } from "../stack/control";

export interface ActiveFaults {
  readonly delays: FaultDelays;
  readonly stoppedRedisNodes: number[];
  readonly pausedApps: string[];
  readonly stoppedApps: string[];
  /** Members of the lock services' clusters that are stopped or paused. */
  readonly members: { readonly service: ClusterService; readonly index: number; readonly addr: string; readonly state: "stopped" | "paused" }[];
  /**
   * The cuts in force (a grudge), and the links the stack can cut (empty when it cannot: not root,
   * no nft; `reason` is then the runner's own, absent when the runner does not answer).
   */
  readonly network: Pick<NetworkStatus, "available" | "reason" | "reasonCode" | "cuts" | "clients" | "servers">;
  /** Redis nodes whose clock is moved: how far ahead and how fast. */
  readonly clocks: readonly { readonly node: number; readonly clock: ClockStatus }[];
  /** False when the stack runner's control API does not answer (faults unknown). */
  readonly stackReachable: boolean;
  readonly any: boolean;
}

/** Every fault in force right now, for the dashboard's always-visible faults panel. */
export async function getActiveFaults(): Promise<ActiveFaults> {
  const [delays, status, network] = await Promise.all([
    getFaults(),
    getStackStatus().catch((): StackStatus | undefined => undefined),
    getNetwork().catch((): NetworkStatus | undefined => undefined),
  ]);
  const stoppedRedisNodes = status?.redis.filter((node) => !node.up).map((node) => node.index) ?? [];
  const pausedApps = status?.apps.filter((app) => app.state === "paused").map((app) => app.instance) ?? [];
  const stoppedApps = status?.apps.filter((app) => app.state === "stopped").map((app) => app.instance) ?? [];
  const members: ActiveFaults["members"] = CLUSTER_SERVICES.flatMap((service) =>
    (status?.[service]?.members ?? []).flatMap((m) => {
      const state = m.paused ? "paused" : m.pid === null ? "stopped" : undefined;
      return state ? [{ service, index: m.index, addr: m.addr, state } as const] : [];
    }));
  const clocks = (status?.redis ?? []).flatMap((node) =>
    node.clock && (node.clock.offsetS !== 0 || node.clock.rate !== 1) ? [{ node: node.index, clock: node.clock }] : []);
  const cuts: readonly Cut[] = network?.cuts ?? [];
  const any = Object.keys(delays).length > 0 || stoppedRedisNodes.length > 0 || pausedApps.length > 0 || stoppedApps.length > 0 || members.length > 0
    || cuts.length > 0 || clocks.length > 0;
  return {
    delays, stoppedRedisNodes, pausedApps, stoppedApps, members, clocks,
    network: {
      available: network?.available ?? false,
      // No reason of ours when the runner does not answer: the panel says so in the reader's
      // language (faults.noStack, and linkGrid.noControl where a reason would go).
      ...(network?.reason && { reason: network.reason }),
      ...(network?.reasonCode && { reasonCode: network.reasonCode }),
      cuts, clients: network?.clients ?? [], servers: network?.servers ?? [],
    },
    stackReachable: Boolean(status),
    any,
  };
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
    case "grudge":
      return void (await stackControl("/network/grudge", "POST", { cuts: action.cuts }));
    case "heal":
      return void (await stackControl("/network/heal"));
    case "clock":
      return void (await stackControl(`/redis/${action.node}/clock`, "POST", { jumpS: action.jumpS }));
    case "clock-rate":
      return void (await stackControl(`/redis/${action.node}/clock`, "POST", { rate: action.rate }));
    case "clock-reset":
      return void (await stackControl(`/redis/${action.node}/clock`, "POST", { reset: true }));
  }
}
