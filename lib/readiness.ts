import { getPool } from "./db";
import { getLockServices } from "./lock-services";
import { zookeeperSessionMs } from "./locks/zookeeper-lock";
import { getRedis, getRedisNodes } from "./redis";
import { getActiveConfig } from "./sale/config";

/**
 * `/api/ready`: is every server the active strategy needs reachable right now? Node 1 (stock,
 * config) and Postgres (orders) always; then the strategy's own: a majority of the five nodes for
 * Redlock, the Sentinels' primary, the ZooKeeper ensemble, the etcd cluster. Each check bounded.
 */
const CHECK_MS = 1000;

async function within(what: string, check: () => Promise<unknown>): Promise<[string, string]> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check(),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_MS} ms`)), CHECK_MS))),
    ]);
    return [what, "ok"];
  } catch (error) {
    return [what, (error as Error).message || "failed"];
  } finally {
    clearTimeout(timer);
  }
}

async function redisMajority(): Promise<void> {
  const nodes = getRedisNodes();
  const answers = await Promise.allSettled(nodes.map((node) => node.ping()));
  const up = answers.filter((answer) => answer.status === "fulfilled").length;
  if (up < Math.floor(nodes.length / 2) + 1) throw new Error(`${up} of ${nodes.length} Redis nodes answer, fewer than a majority`);
}

function strategyChecks(strategy: string, ttlMs: number): [string, () => Promise<unknown>][] {
  const services = getLockServices();
  if (strategy === "redlock") return [["redis majority", redisMajority]];
  if (strategy.startsWith("sentinel")) return [["sentinel primary", () => services.sentinel().ping()]];
  if (strategy.startsWith("zookeeper")) {
    return [["zookeeper", async () => {
      const client = await services.zookeeper(zookeeperSessionMs(ttlMs));
      await new Promise<void>((resolve, reject) => client.exists("/", (error) => (error ? reject(error) : resolve())));
    }]];
  }
  if (strategy.startsWith("etcd")) return [["etcd", () => services.etcd().get("locklab/ready").exec()]];
  return [];
}

export interface Readiness {
  readonly ready: boolean;
  readonly strategy: string;
  readonly checks: Record<string, string>;
}

export async function readiness(): Promise<Readiness> {
  const base: [string, () => Promise<unknown>][] = [
    ["redis node 1", () => getRedis().ping()],
    ["postgres", () => getPool().query("SELECT 1")],
  ];
  const config = await Promise.race([
    getActiveConfig(),
    new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), CHECK_MS)),
  ]).catch(() => undefined);
  const strategy = config?.strategy ?? "unknown";
  const checks = Object.fromEntries(await Promise.all([...base, ...strategyChecks(strategy, config?.lockTtlMs ?? 2000)].map(([what, check]) => within(what, check))));
  return { ready: Object.values(checks).every((result) => result === "ok"), strategy, checks };
}
