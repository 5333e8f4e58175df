import type { StrategyName } from "../locks/strategies";
import type { FaultPoint } from "./faults";
import type { ClusterService } from "./members";

/** The shape of the pitfall lab's cards (./scenarios.ts lists them; the runner plays them). */
/** What a case can show: `double-sold` and `lost-stock` are counted per unit (lib/sale/accounting.ts). */
export type Pitfall = "oversell" | "double-sold" | "lost-stock" | "deadlock" | "two-holders";
export const ALL_PITFALLS: readonly Pitfall[] = ["oversell", "double-sold", "lost-stock", "deadlock", "two-holders"];

export type Via = "nginx" | "app-1" | "app-2";

export type LabStep =
  /** `buyers` one-shot purchases, `concurrency` at a time; waits for all answers. */
  | { readonly do: "load"; readonly via: Via; readonly buyers: number; readonly concurrency: number; readonly background?: boolean }
  /**
   * Waits until a buyer is inside the critical section, until nobody is (a write held in the
   * network has landed), until the lock key exists on node 1, or until both app instances say they
   * are ready (every server the strategy needs answers them: /api/ready). Past `timeoutMs` the case
   * fails, unless `orGoOn` (a case where, by design, that may never come).
   */
  | { readonly do: "wait-until"; readonly what: WaitFor; readonly timeoutMs: number; readonly orGoOn?: boolean }
  /** SIGKILL an app instance (the stack runner restarts it and answers once it is ready). */
  | { readonly do: "kill-app"; readonly app: 1 | 2 }
  | { readonly do: "clear-faults" }
  | { readonly do: "stop-redis"; readonly nodes: readonly number[] }
  | { readonly do: "start-redis"; readonly nodes: readonly number[] }
  /** A Redis node's real wall clock (libfaketime) jumps by `jumpS` seconds: its keys' expiries follow it. */
  | { readonly do: "jump-clock"; readonly node: number; readonly jumpS: number }
  /** A grudge: these links cut (real packet drops), replacing any cuts before; `heal` lifts them all. */
  | { readonly do: "cut"; readonly cuts: readonly LabCut[] }
  | { readonly do: "heal" }
  | { readonly do: "sleep"; readonly ms: number }
  /** Waits for every background load to finish. */
  | { readonly do: "await-load" }
  /** Stops, starts, pauses, resumes or kills members of a lock service's cluster (the control API's /<service>/<n>/…). */
  | { readonly do: "member"; readonly service: ClusterService; readonly action: "stop" | "start" | "pause" | "resume" | "kill"; readonly members: readonly number[] }
  | SentinelStep
  | ClusterStep;

/** The Redis Cluster's faults, on the shard that owns the lock's key (lib/lab/cluster-faults.ts). */
export type ClusterStep =
  /** `CLIENT PAUSE ms WRITE` on the shard's replica: it applies none of its primary's stream meanwhile. */
  | { readonly do: "cluster-hold-replication"; readonly ms: number }
  /** SIGKILL the shard's primary, wait (bounded) until the cluster serves the slot from its replica, start the old one again. */
  | { readonly do: "cluster-fail-over"; readonly timeoutMs: number };


/** The Sentinel pair's faults (lib/lab/sentinel-faults.ts). */
export type SentinelStep =
  /** Waits (bounded) until the Sentinels name another primary than the one of the case's start. */
  | { readonly do: "await-failover"; readonly timeoutMs: number }
  /** `min-replicas-to-write` on both members of the pair (0 turns it off); `maxLagS`: min-replicas-max-lag. */
  | { readonly do: "min-replicas"; readonly replicas: number; readonly maxLagS: number }
  /** `CLIENT PAUSE ms WRITE` on the replica: it answers the Sentinels but applies no replication meanwhile. */
  | { readonly do: "hold-replication"; readonly ms: number }
  /** SIGKILL the primary, wait (bounded) until the Sentinels have promoted the replica, start the old one as a replica. */
  | { readonly do: "fail-over"; readonly timeoutMs: number };

/** One cut of a grudge, in the stack runner's names (app-1, redis-3, primary, sentinel-2, zookeeper-1, etcd-2-peer…). */
export interface LabCut {
  readonly client: string;
  readonly server: string;
  readonly direction?: "both" | "to-server" | "to-client";
}

export type WaitFor = "holder-inside" | "second-holder-inside" | "no-holder-inside" | "lock-held" | "instances-ready" | "sentinel-pair-settled";

export interface LabCase {
  readonly id: string;
  readonly label: string;
  readonly expect: "pitfall" | "fix";
  readonly strategy: StrategyName;
  readonly lockTtlMs: number;
  readonly waitTimeoutMs: number;
  readonly workMs: number;
  readonly initialStock: number;
  readonly nestedLock?: boolean;
  /** Chubby's lock-delay for the zookeeper and etcd locks. @default 0 */
  readonly lockDelayMs?: number;
  readonly faults?: readonly { readonly point: FaultPoint; readonly ms: number; readonly times?: number }[];
  readonly steps: readonly LabStep[];
  /** The pitfalls that count for this case. @default every pitfall */
  readonly watch?: readonly Pitfall[];
  /** Extra conditions the outcome must meet (beyond the verdict) for the case to pass. */
  readonly require?: { readonly allUnavailable?: boolean; readonly staleRefused?: boolean; readonly someBusy?: boolean; readonly someBought?: boolean };
}

export interface LabScenario {
  readonly id: number | "reentrancy" | "db-lease" | "failover" | "zk-session" | "etcd-lease" | "cp-quorum"
    | "write-in-flight" | "redlock-partition" | "zk-cut-off" | "etcd-minority" | "split-brain" | "cluster-failover" | "pooler-session";
  readonly title: string;
  readonly tried: string;
  readonly predict: string;
  readonly cases: readonly LabCase[];
}

