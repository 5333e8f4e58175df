// Independent Redis nodes (no replication, no persistence), one child each, in .stack/redis-<n>.

import path from "node:path";
import { pick } from "../control";
import type { RedisNodeConfig } from "../config";
import { StackError } from "../errors";
import { info, isQuiet, ok, say, since, tail } from "../log";
import { STACK_DIR, mkdirp } from "../paths";
import { LOCAL_HOSTS, foreignPort, portAnswers } from "../ports";
import {
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
} from "../processes";
import { redisCommand, redisConfigDir, redisPing, redisShutdown } from "../resp";
import type { Service, ServiceFactory } from "../service";
import { type PortFacts, type StaleRule, decidePortClaim } from "../stale";

const REDIS_READY_TIMEOUT_MS = 10_000;

interface RedisNode extends RedisNodeConfig {
  /** Started and stopped by the stack; false for a server the user pointed us at. */
  managed: boolean;
  handle: ChildHandle | null;
}

function redisDir(node: RedisNodeConfig): string {
  return path.join(STACK_DIR, `redis-${node.index}`);
}

function redisArgs(node: RedisNodeConfig): string[] {
  const dir = redisDir(node);
  return [
    "--port", String(node.port),
    "--bind", node.host === "localhost" ? "127.0.0.1" : node.host,
    "--save", "",
    "--appendonly", "no",
    "--daemonize", "no",
    "--dir", dir,
    "--pidfile", path.join(dir, "redis.pid"),
    "--logfile", "",
  ];
}

export const REDIS_STALE: StaleRule = {
  kind: "redis",
  isOurs: (_rec, proc) => proc.cmdline.includes("redis-server"),
  async stop(rec) {
    const stopped = rec.port && (await redisShutdown("127.0.0.1", rec.port));
    if (!stopped) signal(rec.pid, "SIGKILL", false);
  },
};

async function observePort(node: RedisNodeConfig, explicit: boolean): Promise<PortFacts> {
  const facts = { answers: false, local: LOCAL_HOSTS.has(node.host), explicit };
  if (!(await portAnswers(node.host, node.port))) return facts;
  if (!(await redisPing(node.host, node.port))) return { ...facts, answers: true, speaks: false };
  const dir = await redisConfigDir(node.host, node.port);
  const leftover = Boolean(dir && path.resolve(dir) === path.resolve(redisDir(node)));
  return { ...facts, answers: true, speaks: true, leftover };
}

async function startNode(node: RedisNode): Promise<void> {
  const t0 = Date.now();
  mkdirp(redisDir(node));
  const handle = spawnChild(`redis-${node.index}`, "redis-server", redisArgs(node), {
    env: process.env,
    record: { kind: "redis", port: node.port },
  });
  node.handle = handle;
  const ready = await waitFor(
    async () => {
      if (handle.exitInfo) return true;
      return redisPing(node.host, node.port, 300);
    },
    REDIS_READY_TIMEOUT_MS,
    50,
  );
  if (!ready || handle.exitInfo) {
    await terminate(handle, "SIGKILL");
    throw new StackError(
      `redis ${node.addr} did not start (${exitDescription(handle.exitInfo)}); log ${handle.logFile}:\n${tail(handle.logFile)}`,
    );
  }
  info(`✓ redis ${node.addr} (${since(t0)})`);
}

async function stopNode(node: RedisNode): Promise<void> {
  if (!running(node.handle)) return;
  const handle = node.handle;
  await redisCommand(node.host, node.port, ["SHUTDOWN", "NOSAVE"], 3000);
  if (!(await waitExit(handle, STOP_TIMEOUT_MS))) await terminate(handle, "SIGKILL");
  await waitFor(async () => !(await portAnswers(node.host, node.port, 200)), 5000);
  removePidFile(handle.name);
}

async function startAgain(node: RedisNode): Promise<void> {
  if (running(node.handle) && (await redisPing(node.host, node.port))) return;
  await startNode(node);
}

export const redis: ServiceFactory = ({ cfg }): Service => {
  const nodes: RedisNode[] = cfg.redis.map((n) => ({ ...n, managed: false, handle: null }));
  const managedNodes = () => nodes.filter((n) => n.managed);

  return {
    name: "redis",
    stage: "store",
    stale: REDIS_STALE,

    async claim() {
      for (const node of nodes) {
        node.managed = true;
        switch (decidePortClaim(await observePort(node, cfg.redisExplicit))) {
          case "start":
            continue;
          case "unreachable":
            throw new StackError(`REDIS_NODES: ${node.addr} does not answer and is not local, so the stack cannot start it`);
          case "stop-leftover":
            await redisShutdown(node.host, node.port); // ours, from a run whose pidfile is gone
            say(`✓ stopped stale redis ${node.addr} from a previous run`);
            continue;
          case "use-existing":
            node.managed = false;
            say(`✓ redis ${node.addr} (already running, used as is)`);
            continue;
          case "foreign":
            throw foreignPort(node.port, "REDIS_NODES", `redis node ${node.index}`);
        }
      }
    },

    async start() {
      const t0 = Date.now();
      await Promise.all(managedNodes().map((n) => startNode(n)));
      if (isQuiet() && managedNodes().length) ok(`redis ×${managedNodes().length} ${managedNodes().map((n) => n.addr).join(" ")}`, t0);
    },

    async stop() {
      await Promise.all(nodes.map((n) => stopNode(n)));
    },

    status: () =>
      Promise.all(
        nodes.map(async (n) => ({
          index: n.index,
          addr: n.addr,
          up: await redisPing(n.host, n.port, 300),
          managed: n.managed,
          pid: running(n.handle) ? n.handle.pid : null,
        })),
      ),

    routes: [
      {
        method: "POST",
        path: /^\/redis\/(\d+)\/stop$/,
        async handle([n]) {
          const node = pick(nodes, n, "redis node");
          await stopNode(node);
          say(`… redis ${node.addr} stopped (control API)`);
          return { redis: node.index, addr: node.addr, up: false };
        },
      },
      {
        method: "POST",
        path: /^\/redis\/(\d+)\/start$/,
        async handle([n]) {
          const node = pick(nodes, n, "redis node");
          await startAgain(node);
          return { redis: node.index, addr: node.addr, up: true, pid: node.handle?.pid ?? null };
        },
      },
    ],

    faulted: () => managedNodes().some((n) => !running(n.handle)),

    async resetFaults() {
      await Promise.all(managedNodes().map((n) => startAgain(n)));
    },
  };
};
