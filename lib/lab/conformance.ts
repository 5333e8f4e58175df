import type { StrategyName } from "../locks/strategies";
import type { LabCase, LabStep } from "./scenario-types";
import { SCENARIOS, findScenario } from "./scenarios";

/**
 * The conformance matrix (`npm run conformance`, docs/conformance.md): every lock — ours and the
 * npm libraries' — through the same fault schedule, judged by the tests' independent checker.
 * Each fault is a lab card's case (./scenarios*.ts) played with the row's strategy instead of the
 * card's own, so a cell is exactly what the card shows in the classroom. A cell whose fault has no
 * meaning for a lock's servers (a Sentinel failover for a Postgres lock) is not played: it says why.
 */

/** Where a lock keeps its state: which faults reach it. */
export type Family = "redis-1" | "redis-5" | "sentinel" | "cluster" | "postgres" | "zookeeper" | "etcd";

export interface MatrixRow {
  readonly strategy: StrategyName;
  readonly family: Family;
  /** Who wrote the lock: "Lock Lab", or the npm package and version. */
  readonly by: string;
  /** The stock store checks a fencing token from the lock (or the lock's own store): a paused holder's write is refused. */
  readonly fenced: boolean;
}

export const MATRIX_ROWS: readonly MatrixRow[] = [
  { strategy: "token-lua", family: "redis-1", by: "Lock Lab", fenced: false },
  { strategy: "token-fencing", family: "redis-1", by: "Lock Lab", fenced: true },
  { strategy: "peer-semaphore-mutex", family: "redis-1", by: "redis-semaphore@5.8.0 (Mutex)", fenced: false },
  { strategy: "redlock", family: "redis-5", by: "Lock Lab", fenced: false },
  { strategy: "redlock-fenced", family: "redis-5", by: "Lock Lab", fenced: true },
  { strategy: "peer-redlock5", family: "redis-5", by: "redlock@5.0.0-beta.2", fenced: false },
  { strategy: "peer-redlock4", family: "redis-5", by: "redlock@4.2.0", fenced: false },
  { strategy: "peer-sesamecare-redlock", family: "redis-5", by: "@sesamecare-oss/redlock@1.4.0", fenced: false },
  { strategy: "peer-semaphore-redlock-mutex", family: "redis-5", by: "redis-semaphore@5.8.0 (RedlockMutex)", fenced: false },
  { strategy: "peer-redlock-universal", family: "redis-5", by: "redlock-universal@0.8.5", fenced: false },
  { strategy: "sentinel", family: "sentinel", by: "Lock Lab", fenced: false },
  { strategy: "sentinel-fenced", family: "sentinel", by: "Lock Lab", fenced: true },
  { strategy: "cluster", family: "cluster", by: "Lock Lab", fenced: false },
  { strategy: "cluster-wait", family: "cluster", by: "Lock Lab", fenced: false },
  { strategy: "cluster-fenced", family: "cluster", by: "Lock Lab", fenced: true },
  { strategy: "pg-for-update", family: "postgres", by: "Lock Lab", fenced: true },
  { strategy: "pg-advisory", family: "postgres", by: "Lock Lab", fenced: true },
  { strategy: "pg-advisory-xact", family: "postgres", by: "Lock Lab", fenced: true },
  { strategy: "peer-advisory-lock", family: "postgres", by: "advisory-lock@2.0.0", fenced: false },
  { strategy: "zookeeper", family: "zookeeper", by: "Lock Lab", fenced: true },
  { strategy: "etcd", family: "etcd", by: "Lock Lab", fenced: true },
];

export const MATRIX_FAULTS = ["pause", "restart", "clock", "failover", "partition"] as const;
export type MatrixFault = (typeof MATRIX_FAULTS)[number];

export const FAULT_TITLES: Readonly<Record<MatrixFault, string>> = {
  pause: "Holder paused past its TTL",
  restart: "A lock node restarts empty",
  clock: "A lock node's clock jumps",
  failover: "Failover",
  partition: "Network partition",
};

/** A cell to play: a lab case, and the card it comes from. */
export interface PlayedCell {
  readonly play: LabCase;
  /** The lab card and case the cell's schedule is: `8/no-fencing`. */
  readonly from: string;
}
/** A cell not played, and why. */
export interface SkippedCell {
  readonly skip: string;
}

/** The lab card's case `caseId`, played with `strategy`; the card's own pass conditions are not the matrix's. */
function fromCard(scenarioId: string, caseId: string, row: MatrixRow, fault: MatrixFault): PlayedCell {
  const labCase = findScenario(scenarioId)?.cases.find((candidate) => candidate.id === caseId);
  if (!labCase) throw new Error(`conformance: no lab case ${scenarioId}/${caseId}`);
  const { require: _require, watch: _watch, lockDelayMs: _delay, ...schedule } = labCase;
  return {
    from: `${scenarioId}/${caseId}`,
    play: { ...schedule, id: `${row.strategy}--${fault}`, label: `${row.strategy}: ${labCase.label}`, strategy: row.strategy, expect: "fix" },
  };
}

const buyer = (via: "app-1" | "app-2"): LabStep => ({ do: "load", via, buyers: 1, concurrency: 1, background: true });

/**
 * Node 1's clock jumps 10 s while app-1's buyer holds the lock there (TTL 6 s, work 2.5 s): the
 * key expires at once, app-2's buyer takes it. Card 10's fault on the one-node locks (card 10 itself
 * jumps node 3 of five). Node 1 keeps the stock too: only keys with an expiry notice the jump.
 */
function nodeOneClock(row: MatrixRow): PlayedCell {
  return {
    from: "10/bare-majority on node 1",
    play: {
      id: `${row.strategy}--clock`, label: `${row.strategy}: node 1's clock jumps 10 s while the lock is held`, expect: "fix", strategy: row.strategy,
      lockTtlMs: 6000, waitTimeoutMs: 8000, workMs: 2500, initialStock: 5,
      steps: [buyer("app-1"), { do: "wait-until", what: "holder-inside", timeoutMs: 3000 },
        { do: "jump-clock", node: 1, jumpS: 10 }, buyer("app-2"), { do: "await-load" }],
    },
  };
}

const NOT_RUN = {
  sharedNode: "not played: node 1 keeps the stock too, and an append-only file for it, so a restart keeps the lock; restarted empty it would lose the sale, not only the lock",
  restartIsFailover: "see Failover: a primary restarted empty comes back as its replica's replica",
  persisted: "not played: the service writes its state to disk, so a restart keeps it",
  clockRedisOnly: "not played: the lab moves the clocks of Redis nodes 1–5 only (libfaketime)",
  noPrimary: "not played: no primary and replica to fail over",
  noPartitionYet: "not played: no partition schedule for this service yet",
} as const;

/** The schedule of one cell of the matrix. */
export function matrixCell(row: MatrixRow, fault: MatrixFault): PlayedCell | SkippedCell {
  const { family } = row;
  switch (fault) {
    case "pause":
      // Card 8's freeze (800 ms past a 200 ms TTL), or the session card's for ZooKeeper (2 s past
      // a 600 ms session) and the lease card's for etcd (3.5 s past a 2 s lease).
      if (family === "zookeeper") return fromCard("zk-session", "zk-unfenced", row, fault);
      if (family === "etcd") return fromCard("etcd-lease", "etcd-unfenced", row, fault);
      return fromCard("8", "no-fencing", row, fault);
    case "restart":
      if (family === "redis-5") return fromCard("9", "restart-empty", row, fault);
      if (family === "redis-1") return { skip: NOT_RUN.sharedNode };
      if (family === "sentinel" || family === "cluster") return { skip: NOT_RUN.restartIsFailover };
      return { skip: NOT_RUN.persisted };
    case "clock":
      if (family === "redis-5") return fromCard("10", "bare-majority", row, fault);
      if (family === "redis-1") return nodeOneClock(row);
      return { skip: NOT_RUN.clockRedisOnly };
    case "failover":
      if (family === "sentinel") return fromCard("failover", "sentinel", row, fault);
      if (family === "cluster") return fromCard("cluster-failover", "cluster", row, fault);
      return { skip: NOT_RUN.noPrimary };
    case "partition":
      if (family === "redis-5") return fromCard("redlock-partition", "partition-jump", row, fault);
      if (family === "redis-1") return fromCard("write-in-flight", "in-flight", row, fault);
      if (family === "sentinel") return fromCard("split-brain", "split-brain", row, fault);
      if (family === "zookeeper") return fromCard("zk-cut-off", "zk-cut-unfenced", row, fault);
      if (family === "etcd") return fromCard("etcd-minority", "etcd-minority-fenced", row, fault);
      return { skip: NOT_RUN.noPartitionYet };
  }
}

/**
 * How one repetition of a cell came out, counted by the independent checker. `not-formed`: its
 * fault did not form in any of its plays (pauseFormed), so it proves nothing either way.
 */
export type RepResult = "held" | "sold-twice" | "lost" | "stuck" | "error" | "not-formed";

/** A repetition whose fault did not form is played again, at most this many plays in all. */
export const MAX_CELL_PLAYS = 3;

/**
 * Whether a pause cell's fault formed, failing closed: the freeze's budget (set to 1, spent by
 * the buyer it froze) must be there and spent, and a second holder must have entered while the
 * frozen one was paused — its lease ran out. A budget key that is gone proves nothing, and a
 * freeze the lock outlasted (no lease ran out: one holder throughout) is no test of the lock.
 */
export function pauseFormed(budgetLeft: string | null, peakHolders: number): { formed: true } | { formed: false; why: string } {
  if (budgetLeft === null) return { formed: false, why: "the pause's budget is gone: nothing shows a buyer froze" };
  if (!(Number(budgetLeft) <= 0)) return { formed: false, why: "the pause never froze a buyer" };
  if (peakHolders <= 1) return { formed: false, why: "no second holder entered while the frozen one was paused: its lease never ran out" };
  return { formed: true };
}

export interface CellResult {
  readonly strategy: StrategyName;
  readonly fault: MatrixFault;
  readonly from?: string;
  readonly skip?: string;
  readonly reps: readonly RepResult[];
  /** Repetitions where two buyers held the lock at once (the checker's peak), whatever they sold. */
  readonly twoHolders: number;
  /** The first failing repetition's holder timeline, relative to docs/: `conformance/<row>--<fault>.svg`. */
  readonly timeline?: string;
  /** The first error, when a repetition could not be played. */
  readonly error?: string;
}

/** What makes two cases the same schedule: everything but their names and pass conditions. */
const scheduleOf = (labCase: LabCase) => JSON.stringify({
  strategy: labCase.strategy, lockTtlMs: labCase.lockTtlMs, waitTimeoutMs: labCase.waitTimeoutMs, workMs: labCase.workMs,
  initialStock: labCase.initialStock, nestedLock: labCase.nestedLock ?? false, lockDelayMs: labCase.lockDelayMs ?? 0,
  faults: labCase.faults ?? [], steps: labCase.steps,
});

/**
 * The lab card's case that plays exactly this cell (same lock, same schedule), if one does: the lab
 * suite already plays it, with the card's own (stricter) pass conditions.
 */
export function sameAsCardCase(cell: PlayedCell): string | undefined {
  const wanted = scheduleOf(cell.play);
  for (const scenario of SCENARIOS) {
    for (const labCase of scenario.cases) if (scheduleOf(labCase) === wanted) return `${scenario.id}/${labCase.id}`;
  }
  return undefined;
}
