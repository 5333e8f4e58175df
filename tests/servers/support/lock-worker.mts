/**
 * One "app instance" for the exclusion tests: a process of its own that builds one strategy on the
 * test's servers and sends `count` acquirers at one resource at once, each inside for `workMs`.
 * It prints one JSON line: every holder's time inside (enteredAt, leftAt on the machine's one
 * clock: performance.timeOrigin + now), the refusals by error name, and how many releases found
 * their lock lost. Run with `node --import tsx`, arguments as one JSON object; it says "ready"
 * once its strategy is built and starts when a line arrives on stdin, so two workers contend at
 * the same time.
 */
import pg from "pg";
import { STRATEGY_FACTORIES, type StrategyName } from "@/lib/locks/strategies";
import { serverLockClients } from "./lock-clients";

interface WorkerArgs {
  readonly strategy: StrategyName;
  readonly resource: string;
  readonly count: number;
  readonly workMs: number;
  readonly waitTimeoutMs: number;
  readonly ttlMs: number;
  readonly clusterNodes?: readonly string[];
  readonly postgresPort?: number;
  readonly pgbouncerPort?: number;
}

const args = JSON.parse(process.argv[2] ?? "{}") as WorkerArgs;
const pool = (port: number | undefined) => {
  if (port === undefined) return undefined;
  const created = new pg.Pool({ host: "127.0.0.1", port, user: "postgres", database: "postgres", max: 20, connectionTimeoutMillis: 0 });
  created.on("error", () => {});
  return created;
};
const lockPool = pool(args.postgresPort);
const bouncerPool = pool(args.pgbouncerPort);
const clients = serverLockClients({ clusterNodes: args.clusterNodes, lockPool, bouncerPool });
const strategy = STRATEGY_FACTORIES[args.strategy](clients);
const clock = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

process.stdout.write("ready\n");
await new Promise((resolve) => process.stdin.once("data", resolve));

const held: [number, number][] = [];
let lost = 0;
const answers = await Promise.allSettled(
  Array.from({ length: args.count }, () =>
    strategy.withLock(args.resource, { ttlMs: args.ttlMs, waitTimeoutMs: args.waitTimeoutMs, onLockLost: () => lost++ }, async () => {
      const enteredAt = clock();
      await sleep(args.workMs);
      held.push([enteredAt, clock()]);
    }),
  ),
);
const refused = answers.flatMap((a) => (a.status === "rejected" ? [(a.reason as Error).name] : []));
process.stdout.write(`${JSON.stringify({ held, refused, lost })}\n`);
await clients.close();
await Promise.allSettled([lockPool?.end(), bouncerPool?.end()]);
process.exit(0);
