import { NETWORK_SCENARIOS } from "./scenarios-network";
import { SERVICE_SCENARIOS } from "./scenarios-services";
import type { LabScenario, LabStep, Via } from "./scenario-types";

/**
 * The pitfall lab's ladder, as data an instructor can read and adjust. Each scenario is a card;
 * each card has one or more cases, each with its settings, faults, steps (load and fault
 * injection), the outcome the class should predict (`expect`), and which pitfalls it watches for.
 * The runner (lib/lab/runner.ts) plays the steps and compares the outcome with `expect`.
 */
const load = (via: Via, buyers: number, concurrency: number): LabStep => ({ do: "load", via, buyers, concurrency });
const crashHolder = (what: "holder-inside" | "lock-held"): LabStep[] => [
  { do: "load", via: "app-1", buyers: 1, concurrency: 1, background: true },
  { do: "wait-until", what, timeoutMs: 3000 },
  { do: "kill-app", app: 1 },
  { do: "clear-faults" },
];
const BASE = { lockTtlMs: 2000, waitTimeoutMs: 20_000, workMs: 5 } as const;
/** Long enough for the app instances' clients to reconnect to restarted Redis nodes. */
const RECONNECT_MS = 800;
export const SCENARIOS: readonly LabScenario[] = [
  {
    id: 1,
    title: "No lock",
    tried: "Buyers read goods:001, work 5 ms, and write stock − 1 with no lock at all.",
    predict: "Concurrent buyers read the same stock: updates are lost and more units are sold than exist.",
    cases: [
      { id: "no-lock", label: "none, 100 buyers, 50 at a time", expect: "pitfall", strategy: "none", ...BASE, initialStock: 20,
        steps: [load("nginx", 100, 50)], watch: ["oversell", "double-sold"] },
    ],
  },
  {
    id: 2,
    title: "In-process mutex",
    tried: "An async mutex inside each app instance.",
    predict: "Safe while one instance serves everyone; with two behind nginx, each has its own mutex: oversell.",
    cases: [
      { id: "one-instance", label: "local, all buyers to app-1", expect: "fix", strategy: "local", ...BASE, initialStock: 20,
        steps: [load("app-1", 100, 50)] },
      { id: "two-instances", label: "local, buyers through nginx to two instances", expect: "pitfall", strategy: "local", ...BASE,
        initialStock: 20, steps: [load("nginx", 100, 50)], watch: ["oversell", "double-sold", "two-holders"] },
    ],
  },
  {
    id: 3,
    title: "SETNX without expiry, the holder crashes",
    tried: "A holder takes SETNX (no expiry) and its app instance is killed inside the critical section.",
    predict: "Nobody ever deletes the lock: every later buyer waits and gives up — the sale stalls with stock left.",
    cases: [
      { id: "no-expiry", label: "setnx-no-expiry, holder killed", expect: "pitfall", strategy: "setnx-no-expiry",
        lockTtlMs: 1000, waitTimeoutMs: 1500, workMs: 5, initialStock: 20,
        faults: [{ point: "in-critical-section", ms: 5000 }],
        // Six waves of buyers, each waiting out its 1.5 s: the sale reads STUCK after three.
        steps: [...crashHolder("holder-inside"), load("nginx", 120, 20)], watch: ["deadlock"] },
      { id: "with-expiry", label: "setnx with an expiry (1 s), holder killed", expect: "fix", strategy: "setnx",
        lockTtlMs: 1000, waitTimeoutMs: 4000, workMs: 5, initialStock: 20,
        faults: [{ point: "in-critical-section", ms: 5000 }],
        steps: [...crashHolder("holder-inside"), load("nginx", 40, 20)], watch: ["deadlock", "oversell", "double-sold", "lost-stock"] },
    ],
  },
  {
    id: 4,
    title: "SETNX then EXPIRE: a crash between the two",
    tried: "SETNX and EXPIRE are two commands; the instance dies right after SETNX.",
    predict: "The lock was set but its expiry never was: deadlock. SET key value NX PX ttl is one atomic command.",
    cases: [
      { id: "two-commands", label: "setnx, killed between SETNX and PEXPIRE", expect: "pitfall", strategy: "setnx",
        lockTtlMs: 1000, waitTimeoutMs: 1500, workMs: 5, initialStock: 20,
        faults: [{ point: "after-setnx", ms: 5000 }],
        steps: [...crashHolder("lock-held"), load("nginx", 120, 20)], watch: ["deadlock"] },
      { id: "set-nx-px", label: "token-lua (SET NX PX 1 s), holder killed", expect: "fix", strategy: "token-lua",
        lockTtlMs: 1000, waitTimeoutMs: 4000, workMs: 5, initialStock: 20,
        faults: [{ point: "in-critical-section", ms: 5000 }],
        steps: [...crashHolder("holder-inside"), load("nginx", 40, 20)], watch: ["deadlock", "oversell", "double-sold", "lost-stock"] },
    ],
  },
  {
    id: 5,
    title: "Work longer than the TTL, DEL to unlock",
    tried: "setnx with a 40 ms TTL and 120 ms of work; unlock is a plain DEL.",
    predict: "The lock expires mid-work, the next buyer takes it, and the first buyer's DEL deletes theirs: oversell.",
    cases: [
      { id: "del-unlock", label: "setnx, TTL 40 ms, work 120 ms", expect: "pitfall", strategy: "setnx",
        lockTtlMs: 40, waitTimeoutMs: 30_000, workMs: 120, initialStock: 15,
        steps: [load("nginx", 50, 20)], watch: ["oversell", "double-sold", "two-holders"] },
    ],
  },
  {
    id: 6,
    title: "Token compared with GET, then DEL",
    tried: "Each holder has a random token; unlock GETs the lock, compares, then DELs — with a 350 ms delay between.",
    predict: "The lock expires between GET and DEL; the DEL removes the next holder's lock and a third buyer enters beside them.",
    cases: [
      // The lock expires 200 ms after the holder's GET and is deleted 350 ms after it: the next holder
      // gets in within those 150 ms and works 300 ms, and the DEL lets a third in beside it (each
      // window 150 ms wide, wide enough for a busy 2-core machine's timers).
      { id: "get-then-del", label: "token-get-del, TTL 500 ms, work 300 ms, 350 ms before DEL", expect: "pitfall",
        strategy: "token-get-del", lockTtlMs: 500, waitTimeoutMs: 30_000, workMs: 300, initialStock: 12,
        faults: [{ point: "before-release-del", ms: 350 }], steps: [load("nginx", 40, 20)], watch: ["two-holders", "oversell", "double-sold"] },
      { id: "lua", label: "token-lua: compare-and-delete in one Lua script", expect: "fix", strategy: "token-lua",
        lockTtlMs: 500, waitTimeoutMs: 30_000, workMs: 300, initialStock: 12,
        faults: [{ point: "before-release-del", ms: 350 }], steps: [load("nginx", 40, 20)] },
      { id: "watch", label: "token-watch: WATCH, GET, MULTI/DEL/EXEC (same 350 ms delay)", expect: "fix", strategy: "token-watch",
        lockTtlMs: 500, waitTimeoutMs: 30_000, workMs: 300, initialStock: 12,
        faults: [{ point: "before-release-del", ms: 350 }], steps: [load("nginx", 40, 20)], watch: ["two-holders", "oversell", "double-sold", "lost-stock"] },
    ],
  },
  {
    id: 7,
    title: "Work longer than the TTL, even with a token",
    tried: "token-lua with a 200 ms TTL and 400 ms of work.",
    predict: "The lock expires mid-work and a second buyer takes it: two holders at once. Each checks its lease before writing and gives up (lock lost), so nothing sells — no unit sold twice, but no sale either. A watchdog that renews the lock keeps one holder, and sells.",
    cases: [
      { id: "no-renewal", label: "token-lua, TTL 200 ms, work 400 ms", expect: "pitfall", strategy: "token-lua",
        lockTtlMs: 200, waitTimeoutMs: 30_000, workMs: 400, initialStock: 5,
        steps: [load("nginx", 16, 16)], watch: ["oversell", "double-sold", "two-holders"] },
      { id: "watchdog", label: "token-watchdog: renews every TTL/3 while working", expect: "fix", strategy: "token-watchdog",
        lockTtlMs: 200, waitTimeoutMs: 30_000, workMs: 400, initialStock: 5,
        steps: [load("nginx", 16, 16)], watch: ["oversell", "double-sold", "lost-stock"] },
    ],
  },
  {
    id: 8,
    title: "The holder pauses past its TTL",
    tried: "One app instance freezes for 800 ms (a stop-the-world pause) after its lease check passed, just before writing the stock.",
    predict: "Its lock expires, the other instance sells, then the frozen one writes an old stock value: units sold twice. The lease check came too early to help; a fencing token makes the store refuse that stale write.",
    cases: [
      { id: "no-fencing", label: "token-lua, TTL 200 ms, one 800 ms pause", expect: "pitfall", strategy: "token-lua",
        lockTtlMs: 200, waitTimeoutMs: 30_000, workMs: 10, initialStock: 10,
        faults: [{ point: "pause-before-write", ms: 800, times: 1 }], steps: [load("nginx", 40, 20)], watch: ["oversell", "double-sold"] },
      { id: "fencing", label: "token-fencing: the stock write checks the token", expect: "fix", strategy: "token-fencing",
        lockTtlMs: 200, waitTimeoutMs: 30_000, workMs: 10, initialStock: 10,
        faults: [{ point: "pause-before-write", ms: 800, times: 1 }], steps: [load("nginx", 40, 20)],
        watch: ["oversell", "double-sold", "lost-stock"], require: { staleRefused: true } },
    ],
  },
  {
    id: 9,
    title: "Redlock: nodes fail",
    tried: "Redlock over five independent Redis nodes while nodes stop and restart without persistence.",
    predict: "Two down: still safe. Three down: no quorum, buyers are told the store is unavailable, nothing sold or lost. A node restarted empty while a lock is held can hand the lock to a second holder, unless its restart waits out the TTL.",
    cases: [
      { id: "two-down", label: "redlock, nodes 4 and 5 stopped mid-run", expect: "fix", strategy: "redlock", ...BASE, initialStock: 30,
        steps: [{ do: "load", via: "nginx", buyers: 120, concurrency: 20, background: true }, { do: "sleep", ms: 150 },
          { do: "stop-redis", nodes: [4, 5] }, { do: "await-load" }] },
      { id: "three-down", label: "redlock, nodes 3, 4 and 5 stopped", expect: "fix", strategy: "redlock", ...BASE, initialStock: 30,
        steps: [{ do: "stop-redis", nodes: [3, 4, 5] }, load("nginx", 30, 10)], require: { allUnavailable: true },
        watch: ["oversell", "double-sold", "lost-stock", "two-holders"] },
      { id: "restart-empty", label: "node 3 restarts empty while the lock is held on 1, 2, 3", expect: "pitfall", strategy: "redlock",
        lockTtlMs: 6000, waitTimeoutMs: 8000, workMs: 2500, initialStock: 5,
        steps: [{ do: "stop-redis", nodes: [4, 5] },
          { do: "load", via: "app-1", buyers: 1, concurrency: 1, background: true }, { do: "wait-until", what: "holder-inside", timeoutMs: 3000 },
          { do: "stop-redis", nodes: [3] }, { do: "start-redis", nodes: [3, 4, 5] }, { do: "sleep", ms: RECONNECT_MS },
          { do: "load", via: "app-2", buyers: 1, concurrency: 1, background: true }, { do: "await-load" }],
        watch: ["two-holders", "double-sold"] },
      { id: "restart-delayed", label: "node 3 stays down past the TTL before restarting", expect: "fix", strategy: "redlock",
        lockTtlMs: 3000, waitTimeoutMs: 8000, workMs: 2500, initialStock: 5,
        steps: [{ do: "stop-redis", nodes: [4, 5] },
          { do: "load", via: "app-1", buyers: 1, concurrency: 1, background: true }, { do: "wait-until", what: "holder-inside", timeoutMs: 3000 },
          { do: "stop-redis", nodes: [3] }, { do: "start-redis", nodes: [4, 5] }, { do: "sleep", ms: RECONNECT_MS },
          { do: "load", via: "app-2", buyers: 1, concurrency: 1, background: true },
          { do: "sleep", ms: 3200 - RECONNECT_MS }, { do: "start-redis", nodes: [3] }, { do: "await-load" }],
        watch: ["two-holders", "oversell", "double-sold", "lost-stock"] },
    ],
  },
  {
    id: 10,
    title: "Redlock: a clock jumps on one node",
    tried: "While the lock is held, node 3's real wall clock jumps 10 s ahead (libfaketime): its copy of the lock, with a 6 s TTL, expires at once.",
    predict: "Redlock's validity check only covers the time spent acquiring: it cannot see a node expiring early. If that node was part of a bare majority, a second holder gets in; with all five holding, the majority survives one jump.",
    cases: [
      { id: "bare-majority", label: "held on nodes 1–3 only, node 3 jumps", expect: "pitfall", strategy: "redlock",
        lockTtlMs: 6000, waitTimeoutMs: 8000, workMs: 2500, initialStock: 5,
        steps: [{ do: "stop-redis", nodes: [4, 5] },
          { do: "load", via: "app-1", buyers: 1, concurrency: 1, background: true }, { do: "wait-until", what: "holder-inside", timeoutMs: 3000 },
          { do: "start-redis", nodes: [4, 5] }, { do: "jump-clock", node: 3, jumpS: 10 }, { do: "sleep", ms: RECONNECT_MS },
          { do: "load", via: "app-2", buyers: 1, concurrency: 1, background: true }, { do: "await-load" }],
        watch: ["two-holders", "double-sold"] },
      { id: "full-majority", label: "held on all five nodes, node 3 jumps", expect: "fix", strategy: "redlock",
        lockTtlMs: 6000, waitTimeoutMs: 8000, workMs: 2500, initialStock: 5,
        steps: [{ do: "load", via: "app-1", buyers: 1, concurrency: 1, background: true }, { do: "wait-until", what: "holder-inside", timeoutMs: 3000 },
          { do: "jump-clock", node: 3, jumpS: 10 },
          { do: "load", via: "app-2", buyers: 1, concurrency: 1, background: true }, { do: "await-load" }],
        watch: ["two-holders", "oversell", "double-sold", "lost-stock"] },
    ],
  },
  {
    id: 11,
    title: "A database row lock",
    tried: "SELECT … FOR UPDATE on a lock row, released at commit; and the NOWAIT variant.",
    predict: "Safe. The price: every holder and waiter holds a pooled connection, and throughput is lower. NOWAIT answers busy at once instead of queueing.",
    cases: [
      { id: "for-update", label: "pg-for-update, 150 buyers, 50 at a time", expect: "fix", strategy: "pg-for-update", ...BASE,
        initialStock: 30, steps: [load("nginx", 150, 50)] },
      { id: "nowait", label: "pg-nowait, same load", expect: "fix", strategy: "pg-nowait", ...BASE,
        initialStock: 30, steps: [load("nginx", 150, 50)], require: { someBusy: true } },
    ],
  },
  {
    id: "db-lease",
    title: "A database lock is a lease too",
    tried: "The row lock with a 200 ms lease (Postgres ends a session idle in its transaction that long) and 1.5 s of work; 12 buyers.",
    predict: "Postgres hands the row to the next waiter while the first holder still works: several holders read the same stock and units are sold twice. Fenced (a token from a Postgres sequence checked by the stock store) and lease-checked, every late holder is stopped and nothing is sold twice.",
    cases: [
      { id: "unfenced", label: "pg-unfenced: TTL 200 ms, wait 1 s, work 1.5 s", expect: "pitfall", strategy: "pg-unfenced",
        lockTtlMs: 200, waitTimeoutMs: 1000, workMs: 1500, initialStock: 10, steps: [load("nginx", 12, 12)],
        watch: ["double-sold", "two-holders", "lost-stock"] },
      { id: "fenced", label: "pg-for-update: the same, fenced and lease-checked", expect: "fix", strategy: "pg-for-update",
        lockTtlMs: 200, waitTimeoutMs: 1000, workMs: 1500, initialStock: 10, steps: [load("nginx", 12, 12)],
        watch: ["double-sold", "lost-stock", "oversell"] },
    ],
  },
  ...SERVICE_SCENARIOS,
  ...NETWORK_SCENARIOS,
  {
    id: 12,
    title: "No lock needed: one atomic decrement",
    tried: "The whole check-and-decrement in one Lua script on Redis (strategy atomic).",
    predict: "Safe and the fastest: nothing to hold, nothing to expire, nothing to release.",
    cases: [
      { id: "atomic", label: "atomic, 200 buyers, 50 at a time", expect: "fix", strategy: "atomic", ...BASE, initialStock: 50,
        steps: [load("nginx", 200, 50)] },
    ],
  },
  {
    id: "reentrancy",
    title: "Reentrancy: a holder calls a locked step again",
    tried: "Inside the critical section the purchase calls a helper that takes the same lock again.",
    predict: "A plain lock waits for itself: every buyer gives up busy and the sale stalls. A reentrant lock (a hash with a hold count, as Redisson does) lets its holder in again.",
    cases: [
      { id: "plain", label: "token-lua, nested lock", expect: "pitfall", strategy: "token-lua", lockTtlMs: 2000, waitTimeoutMs: 800,
        workMs: 5, initialStock: 5, nestedLock: true, steps: [load("nginx", 10, 5)], watch: ["deadlock"] },
      { id: "reentrant", label: "token-reentrant, nested lock", expect: "fix", strategy: "token-reentrant", lockTtlMs: 2000,
        waitTimeoutMs: 5000, workMs: 5, initialStock: 5, nestedLock: true, steps: [load("nginx", 10, 5)] },
    ],
  },
];

export function findScenario(id: string): LabScenario | undefined {
  return SCENARIOS.find((scenario) => String(scenario.id) === id);
}
