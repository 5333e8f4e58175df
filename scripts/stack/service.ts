// What every part of the stack (Redis, Postgres, the apps, nginx, and next Sentinel, ZooKeeper,
// etcd…) provides to the orchestration in stack.ts. Adding a service is one file under services/
// that exports a ServiceFactory, plus its line in services/index.ts.

import type { StackConfig } from "./config";
import type { StaleRule } from "./stale";

/**
 * When a service starts. `network`: the packet filter, before any server or client exists, so
 * every connection is marked from its first packet (and, stopped last, it outlives them all).
 * `store`: the backing servers, started together; migrations and the seed run once they are all
 * up. `app`: after the control API is listening. `proxy`: last.
 * Services of one stage start together, in list order (services/index.ts); stopping walks the
 * whole list backwards, one service at a time.
 */
export type Stage = "network" | "store" | "app" | "proxy";
export const STAGES: readonly Stage[] = ["network", "store", "app", "proxy"];

/** A control API route: `path` is matched against the path without trailing slashes, and its
 * groups are passed as `params`; a POST's JSON body, if it has one, as `body` (undefined when
 * empty). The handler's result is the 200 JSON body. */
export interface Route {
  readonly method: "GET" | "POST";
  readonly path: RegExp;
  handle(params: string[], body?: unknown): Promise<unknown>;
}

export interface StartOptions {
  /** One summary line for all Redis nodes instead of one each. @default false */
  readonly quiet?: boolean;
  /** Start the app instances (false: stores, nginx and the control API only). @default true */
  readonly apps?: boolean;
  /** Run prisma migrate deploy and the seed. @default true */
  readonly seed?: boolean;
  /** Stop the stack on SIGINT/SIGTERM/SIGHUP and exit 130/143. @default true */
  readonly handleSignals?: boolean;
}

/** The variables the stack hands to its children and writes to .stack/stack.env. */
export interface StackEnv {
  readonly ADMIN_PASSWORD: string;
  readonly REDIS_NODES: string;
  readonly REDIS_CLUSTER_NODES: string;
  readonly SENTINELS: string;
  readonly SENTINEL_MASTER: string;
  readonly SENTINEL_REDIS: string;
  readonly ZOOKEEPER_HOSTS: string;
  readonly ETCD_ENDPOINTS: string;
  readonly DATABASE_URL: string;
  readonly PGBOUNCER_URL: string;
  readonly APP_PORTS: string;
  readonly PUBLIC_PORT: string;
  readonly PUBLIC_URL: string;
  readonly STACK_CONTROL_PORT: string;
  readonly STACK_CONTROL_URL: string;
  readonly STACK_CONTROL_TOKEN: string;
}

/** What a service sees of the stack it belongs to. */
export interface StackContext {
  readonly cfg: StackConfig;
  readonly env: StackEnv;
  readonly opts: StartOptions;
  /** True once stopStack has begun: a child exiting now is not a crash. */
  readonly stopping: boolean;
  /** Some service is down because a fault was injected through the control API. */
  faultsActive(): boolean;
}

export interface Service {
  /** Its key in the control API's /status answer. */
  readonly name: string;
  readonly stage: Stage;
  /** How to recognise and stop this service's processes left behind by a supervisor that died
   * without stopping them. Without it such pidfiles are just removed. */
  readonly stale?: StaleRule;
  /** Runs once the previous run's processes are stopped: removes what they left behind that would
   * keep this service from starting (Postgres' postmaster.pid). */
  cleanup?(): void;
  /** Runs before anything starts: decides what the stack will manage, and throws a StackError
   * naming the variable to change when a port is taken. */
  claim(): Promise<void>;
  /** Starts what the service manages and resolves once it answers. */
  start(): Promise<void>;
  /** Stops everything it started, on the way out, and waits for each process to exit. */
  stop(): Promise<void>;
  /** Its part of the /status answer. */
  status(): Promise<unknown>;
  /** Fault-injection routes it adds to the control API. */
  readonly routes?: readonly Route[];
  /** Something it manages is down (stopped through the control API or crashed). */
  faulted?(): boolean;
  /** Starts again what the control API stopped or paused (POST /reset-faults). */
  resetFaults?(): Promise<void>;
}

export type ServiceFactory = (ctx: StackContext) => Service;
