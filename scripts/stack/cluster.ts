// A cluster of identical members the stack starts on loopback (Sentinel's Redis pair and its
// Sentinels, the Redis Cluster, the ZooKeeper ensemble, the etcd cluster, and PgBouncer, a
// cluster of one): one child each, in .stack/<name>-<n>, wiped at every stack start, so each start
// is a fresh cluster. Each service file says how to start a member and when the whole cluster
// serves; this file does the rest, including the control API's /<name>/<n>/stop|start|pause|
// resume|kill and /<name>/stop|start (every member at once).

import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import type { MemberConfig } from "./config";
import { HttpError, StackError } from "./errors";
import { info, isQuiet, ok, say, since, tail } from "./log";
import { STACK_DIR, mkdirp } from "./paths";
import { CLIENT_GID_BASE, type ClientRole, spawnGid } from "./network";
import { LOCAL_HOSTS, connectHost, foreignPort, portAnswers } from "./ports";
import {
  type ChildEnv,
  type ChildHandle,
  STOP_TIMEOUT_MS,
  exitDescription,
  removePidFile,
  running,
  signal,
  spawnChild,
  terminate,
  waitExit,
  waitFor,
} from "./processes";
import type { Route, Service, ServiceFactory, StackContext } from "./service";
import type { StaleRule } from "./stale";

export interface MemberCommand {
  readonly command: string;
  readonly args: string[];
  readonly env?: ChildEnv;
  /** Run as this user (PgBouncer, which refuses root, as `postgres`); the member's group id stays its own. */
  readonly uid?: number;
}

export interface ClusterSpec {
  /** The service's name: its /status key, its control routes' prefix and its folders' prefix. */
  readonly name: string;
  /** The variable that lists its addresses, named when a port is taken. */
  readonly portVar: string;
  /** How one member is called in messages ("etcd member", "sentinel"…). */
  readonly what: string;
  readonly members: (ctx: StackContext) => readonly MemberConfig[];
  /** Every port a member listens on (its client port first). */
  readonly ports?: (member: MemberConfig, index: number) => readonly number[];
  /** Writes what every member needs before any starts (config files, ids). Folders are fresh. */
  prepare?(members: readonly MemberConfig[], ctx: StackContext): void | Promise<void>;
  command(member: MemberConfig, dir: string, members: readonly MemberConfig[], ctx: StackContext): MemberCommand | Promise<MemberCommand>;
  /** The member answers as itself (not necessarily as part of a quorum). */
  answers(member: MemberConfig): Promise<boolean>;
  /** The cluster as a whole serves: a quorum, a leader, a known primary. */
  serves(members: readonly MemberConfig[]): Promise<boolean>;
  /** How long the first start may take to serve. */
  readonly readyTimeoutMs: number;
  /**
   * Joins the members into one cluster once every one answers, at the stack's start only (the
   * Redis Cluster's `redis-cli --cluster create`); a member started again later rejoins by itself.
   */
  form?(members: readonly MemberConfig[], ctx: StackContext): Promise<void>;
  /** A polite stop (Redis' SHUTDOWN); SIGTERM otherwise. */
  stopMember?(member: MemberConfig): Promise<void>;
  /**
   * When every member stops at once, the one to stop only after the others have exited (etcd's
   * leader, which would otherwise spend seconds handing its leadership to a member that is
   * stopping too); undefined: all together.
   */
  lastToStop?(members: readonly MemberConfig[]): Promise<MemberConfig | undefined>;
  /** What /status adds about the cluster beside its members (who is primary of what). */
  details?(members: readonly MemberConfig[]): Promise<Record<string, unknown>>;
  /** Control routes of the service's own beside the members' (a failover, a lookup). */
  routes?(cluster: ClusterView): readonly Route[];
  /** Recognises a leftover member by its command line. */
  readonly marker: string;
}

/** What a service's own routes see of its running cluster. */
export interface ClusterView {
  readonly members: readonly MemberConfig[];
  /** The member `<n>` of a route, or 404. */
  member(n: string | undefined): MemberConfig;
  /** Its process runs and is not paused. */
  running(member: MemberConfig): boolean;
}

interface Member extends MemberConfig {
  handle: ChildHandle | null;
  paused: boolean;
}

const dirOf = (spec: ClusterSpec, member: MemberConfig) => path.join(STACK_DIR, `${spec.name}-${member.index}`);

/** Sends `text` and resolves with everything the server says before it closes (ZooKeeper's four-letter words). */
export function tcpExchange(host: string, port: number, text: string, timeoutMs = 1000): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: connectHost(host), port });
    let out = "";
    const done = () => {
      socket.destroy();
      resolve(out);
    };
    socket.setTimeout(timeoutMs, done);
    socket.once("connect", () => socket.write(text));
    socket.on("data", (chunk) => (out += chunk.toString("utf8")));
    socket.once("end", done);
    socket.once("error", done);
  });
}

export function clusterService(spec: ClusterSpec): ServiceFactory {
  return (ctx): Service => {
    const members: Member[] = spec.members(ctx).map((m) => ({ ...m, handle: null, paused: false }));
    const label = (m: Member) => `${spec.name} ${m.addr}`;
    const ports = (m: Member) => spec.ports?.(m, m.index) ?? [m.port];

    async function startMember(m: Member, waitAnswer: boolean): Promise<void> {
      const dir = mkdirp(dirOf(spec, m));
      const { command, args, env, uid } = await spec.command(m, dir, members, ctx);
      m.paused = false;
      // Its own group id, so the network service can cut this member's links (its name is its role).
      const gid = spec.name in CLIENT_GID_BASE ? spawnGid(spec.name as ClientRole, m.index) : undefined;
      m.handle = spawnChild(`${spec.name}-${m.index}`, command, args, { env: env ?? process.env, uid, gid, record: { kind: spec.name, port: m.port } });
      if (!waitAnswer) return;
      const handle = m.handle;
      const answered = await waitFor(async () => Boolean(handle.exitInfo) || (await spec.answers(m)), spec.readyTimeoutMs, 100);
      if (!answered || handle.exitInfo) {
        throw new StackError(`${label(m)} did not start (${exitDescription(handle.exitInfo)}); log ${handle.logFile}:\n${tail(handle.logFile)}`);
      }
    }

    async function stopMember(m: Member): Promise<void> {
      if (!running(m.handle)) return;
      const handle = m.handle;
      if (m.paused) signal(handle.pid, "SIGCONT");
      m.paused = false;
      if (spec.stopMember) await spec.stopMember(m).catch(() => undefined);
      if (!(await waitExit(handle, spec.stopMember ? 3000 : 0))) await terminate(handle, "SIGTERM", STOP_TIMEOUT_MS);
      await waitFor(async () => !(await portAnswers(m.host, m.port, 200)), 5000);
      removePidFile(handle.name);
    }

    /** Every member, the one spec.lastToStop names after the rest. */
    async function stopAll(): Promise<void> {
      const last = await spec.lastToStop?.(members.filter((m) => running(m.handle) && !m.paused)).catch(() => undefined);
      const lastMember = members.find((m) => m.index === last?.index);
      await Promise.all(members.filter((m) => m !== lastMember).map((m) => stopMember(m)));
      if (lastMember) await stopMember(lastMember);
    }

    async function waitServes(timeoutMs: number): Promise<void> {
      if (!(await waitFor(() => spec.serves(members), timeoutMs, 200))) {
        const logs = members.map((m) => (m.handle ? `${m.handle.logFile}:\n${tail(m.handle.logFile, 8)}` : "")).join("\n");
        throw new StackError(`${spec.name} did not come up as a cluster within ${timeoutMs} ms; logs:\n${logs}`);
      }
    }

    const member = (n: string | undefined): Member => {
      const found = members.find((m) => String(m.index) === n);
      if (!found) throw new HttpError(404, "not_found", `no ${spec.what} ${n} (there are ${members.length})`);
      return found;
    };

    return {
      name: spec.name,
      stage: "store",
      stale: {
        kind: spec.name,
        isOurs: (_rec, proc) => proc.cmdline.includes(spec.marker),
        async stop(rec) {
          signal(rec.pid, "SIGCONT");
          signal(rec.pid, "SIGKILL");
        },
      } satisfies StaleRule,

      cleanup() {
        for (const m of members) fs.rmSync(dirOf(spec, m), { recursive: true, force: true });
      },

      async claim() {
        for (const m of members) {
          if (!LOCAL_HOSTS.has(m.host)) throw new StackError(`${spec.portVar}: ${m.addr} is not on this machine, so the stack cannot start it`);
          for (const port of ports(m)) {
            if (await portAnswers(m.host, port)) throw foreignPort(port, spec.portVar, `${spec.what} ${m.index}`);
          }
        }
      },

      async start() {
        const t0 = Date.now();
        for (const m of members) mkdirp(dirOf(spec, m));
        await spec.prepare?.(members, ctx);
        await Promise.all(members.map((m) => startMember(m, true)));
        await spec.form?.(members, ctx);
        await waitServes(spec.readyTimeoutMs);
        const line = `${spec.name} ×${members.length} ${members.map((m) => m.addr).join(" ")}`;
        if (isQuiet()) ok(line, t0);
        else info(`✓ ${line} (${since(t0)})`);
      },

      stop: stopAll,

      status: async () => ({
        serves: await spec.serves(members),
        ...(await spec.details?.(members)),
        members: await Promise.all(
          members.map(async (m) => ({
            index: m.index,
            addr: m.addr,
            up: !m.paused && (await spec.answers(m)),
            paused: m.paused,
            pid: running(m.handle) ? m.handle.pid : null,
          })),
        ),
      }),

      routes: [
        {
          method: "POST",
          // Every member at once: nothing is left running to take over, so the cluster comes back
          // as it was (the Redis Cluster: no replica promoted, the same roles).
          path: new RegExp(`^/${spec.name}/(stop|start)$`),
          async handle([action]) {
            if (action === "stop") {
              await stopAll();
              say(`… ${spec.name} stopped, every member (control API)`);
            } else {
              await Promise.all(members.filter((m) => !running(m.handle)).map((m) => startMember(m, true)));
              await waitServes(spec.readyTimeoutMs);
            }
            return { [spec.name]: action, serves: await spec.serves(members) };
          },
        },
        ...(spec.routes?.({
          members,
          member,
          running: (m) => members.some((own) => own.index === m.index && running(own.handle) && !own.paused),
        }) ?? []),
        {
          method: "POST",
          path: new RegExp(`^/${spec.name}/(\\d+)/(stop|start|pause|resume|kill)$`),
          async handle([n, action]) {
            const m = member(n);
            if (action === "stop") {
              await stopMember(m);
              say(`… ${label(m)} stopped (control API)`);
            } else if (action === "kill") {
              // No goodbye: a Redis primary stopped politely would first let its replica catch up.
              if (running(m.handle)) await terminate(m.handle, "SIGKILL", 2000);
              removePidFile(`${spec.name}-${m.index}`);
              m.paused = false;
              say(`… ${label(m)} killed (SIGKILL, control API)`);
            } else if (action === "pause") {
              if (!running(m.handle)) throw new HttpError(409, "not_running", `${label(m)} is not running`);
              signal(m.handle.pid, "SIGSTOP");
              m.paused = true;
              say(`… ${label(m)} paused (SIGSTOP)`);
            } else if (m.paused && running(m.handle)) {
              signal(m.handle.pid, "SIGCONT");
              m.paused = false;
            } else if (!running(m.handle)) {
              await startMember(m, true);
            }
            return { [spec.name]: m.index, addr: m.addr, up: running(m.handle) && !m.paused, paused: m.paused, pid: running(m.handle) ? m.handle.pid : null };
          },
        },
      ],

      faulted: () => members.some((m) => !running(m.handle) || m.paused),

      async resetFaults() {
        const paused = members.some((m) => m.paused);
        for (const m of members) {
          if (m.paused && running(m.handle)) {
            signal(m.handle.pid, "SIGCONT");
            m.paused = false;
          }
        }
        const stopped = members.filter((m) => !running(m.handle));
        if (!stopped.length && !paused) return;
        await Promise.all(stopped.map((m) => startMember(m, true)));
        await waitServes(spec.readyTimeoutMs);
      },
    };
  };
}
