import type { LabCase, LabScenario, LabStep, Via } from "./scenario-types";

/**
 * The pitfall lab's cards for the articles' other lock services (Sentinel failover, ZooKeeper
 * sessions, etcd leases, CP without a quorum), in the same shape as the rest of the ladder
 * (./scenarios.ts, which lists them in place).
 */
const load = (via: Via, buyers: number, concurrency: number): LabStep => ({ do: "load", via, buyers, concurrency });
/** Long enough for the app instances' clients to reconnect to restarted servers. */
const RECONNECT_MS = 800;

/** One holder on app-1 while the primary fails over, then one more buyer on app-2 (see the failover card). */
const FAILOVER = { lockTtlMs: 8000, waitTimeoutMs: 10_000, workMs: 4000, initialStock: 5,
  steps: [{ do: "hold-replication", ms: 10_000 },
    // The primary dies only once app-1's buyer holds the lock: after a fixed 300 ms the kill sometimes
    // came first (a busy instance), the buyer then locked on the promoted replica and nothing showed.
    // Under sentinel-wait no lock counts while the replica holds back, so no holder comes: go on after 2 s.
    { do: "load", via: "app-1", buyers: 1, concurrency: 1, background: true },
    { do: "wait-until", what: "holder-inside", timeoutMs: 2000, orGoOn: true },
    { do: "fail-over", timeoutMs: 10_000 }, { do: "sleep", ms: RECONNECT_MS },
    { do: "load", via: "app-2", buyers: 2, concurrency: 1, background: true }, { do: "await-load" }] } as const satisfies Partial<LabCase>;
/**
 * The failover card on the Redis Cluster: the replica of the lock key's shard holds replication
 * back, app-1's buyer takes the lock on the shard's primary and works 4 s, the primary is killed and
 * the cluster promotes the replica (1 s node timeout, then an election), and app-2's client follows
 * the slot map to it (refreshed every second).
 */
// app-1 works 8 s: the cluster takes ~2.7 s to promote the replica (1 s node timeout, then an
// election), and app-2's buyer comes 1.5 s after, well inside app-1's work (with 4 s it came after).
const CLUSTER_FAILOVER = { lockTtlMs: 15_000, waitTimeoutMs: 20_000, workMs: 8000, initialStock: 5,
  steps: [{ do: "cluster-hold-replication", ms: 10_000 },
    { do: "load", via: "app-1", buyers: 1, concurrency: 1, background: true },
    // Under cluster-wait no lock counts while the replica holds back: no holder comes, go on after 2 s.
    { do: "wait-until", what: "holder-inside", timeoutMs: 2000, orGoOn: true },
    { do: "cluster-fail-over", timeoutMs: 15_000 }, { do: "sleep", ms: 1500 },
    { do: "load", via: "app-2", buyers: 1, concurrency: 1, background: true }, { do: "await-load" }] } as const satisfies Partial<LabCase>;
/** Buyers through nginx, ten at a time, each holding the lock 30 ms: enough overlap for a pooler to lend a held session. */
const POOLED = { lockTtlMs: 3000, waitTimeoutMs: 3000, workMs: 30, initialStock: 30, steps: [load("nginx", 40, 10)] } as const satisfies Partial<LabCase>;
/**
 * A holder frozen well past its ZooKeeper session (600 ms), then past its etcd lease (2 s). The
 * ensemble expires a session on its tick and then tells the next waiter: with a 2 s freeze that
 * sometimes came after the frozen holder had written (one holder, nothing for the fence to refuse).
 */
const SESSION_PAUSE = { lockTtlMs: 600, waitTimeoutMs: 30_000, workMs: 10, initialStock: 10,
  faults: [{ point: "pause-before-write", ms: 3000, times: 1 }] } as const;
const LEASE_PAUSE = { lockTtlMs: 2000, waitTimeoutMs: 30_000, workMs: 10, initialStock: 10,
  faults: [{ point: "pause-before-write", ms: 3500, times: 1 }] } as const;

export const SERVICE_SCENARIOS: readonly LabScenario[] = [
  {
    id: "failover",
    title: "Failover loses the lock",
    tried: "A lock on a Redis primary with one asynchronous replica under three Sentinels. The replica holds replication back for a moment (CLIENT PAUSE WRITE), a buyer on app-1 takes the lock and works 4 s, the primary is killed, the Sentinels promote the replica, and a buyer on app-2 asks for the lock.",
    predict: "The promoted replica never received the lock: the second buyer gets it while the first still works, and both sell the same unit. With WAIT 1 the first lock never counted (no replica confirmed it), so there is one holder; Redlock's five independent masters do not care about this primary at all.",
    cases: [
      { id: "sentinel", label: "sentinel: the lock is gone with the primary", expect: "pitfall", strategy: "sentinel", ...FAILOVER,
        watch: ["two-holders", "double-sold"] },
      { id: "sentinel-wait", label: "sentinel-wait: a lock counts once a replica has it", expect: "fix", strategy: "sentinel-wait", ...FAILOVER,
        watch: ["two-holders", "double-sold", "oversell", "lost-stock"] },
      { id: "redlock", label: "redlock under the same fault", expect: "fix", strategy: "redlock", ...FAILOVER,
        watch: ["two-holders", "double-sold", "oversell", "lost-stock"] },
    ],
  },
  {
    id: "cluster-failover",
    title: "A Redis Cluster failover loses the lock",
    tried: "The lock on a Redis Cluster (three primaries, each with one asynchronous replica). The replica of the shard that owns the lock's key holds replication back for a moment, a buyer on app-1 takes the lock and works 8 s, the shard's primary is killed, the cluster promotes its replica, and a buyer on app-2 asks for the lock.",
    predict: "As with Sentinel: the promoted replica never received the lock, so the second buyer gets it while the first still works, and both sell the same unit. Sharding spreads keys over primaries; each key still lives on one primary and its asynchronous replica. WAIT 1 makes a lock count only once the replica has it (here: no lock while the replica holds back) — but the replica's copy is in memory only, and WAIT is no consensus. A fencing token from one counter the stock store checks refuses the older holder's write whatever the cluster says.",
    cases: [
      { id: "cluster", label: "cluster: the lock is gone with the shard's primary", expect: "pitfall", strategy: "cluster", ...CLUSTER_FAILOVER,
        watch: ["two-holders", "double-sold"] },
      { id: "cluster-wait", label: "cluster-wait: a lock counts once the shard's replica has it", expect: "fix", strategy: "cluster-wait", ...CLUSTER_FAILOVER,
        watch: ["two-holders", "double-sold", "oversell", "lost-stock"] },
      { id: "cluster-fenced", label: "cluster-fenced: a token from the stock's node, checked by the store", expect: "fix", strategy: "cluster-fenced", ...CLUSTER_FAILOVER,
        watch: ["double-sold", "oversell", "lost-stock"], require: { staleRefused: true, someBought: true } },
    ],
  },
  {
    id: "pooler-session",
    title: "The pooler shares your session",
    tried: "Postgres session advisory locks (pg_advisory_lock / pg_advisory_unlock), taken through PgBouncer in transaction mode, as code written for a direct connection does once a pooler is put in front. 40 buyers come through nginx, ten at a time.",
    predict: "In transaction mode each statement runs on whichever server connection PgBouncer lends, and the lock stays on that connection when it goes back to the pool. Advisory locks are reentrant per session: the next buyer lent the same connection \"gets\" the lock at once while the first still holds it — two holders, a unit sold twice — and an unlock lent another connection answers false and leaves the lock behind, held by nobody. The transaction-scoped lock (pg_advisory_xact_lock, released by COMMIT) keeps one server connection from BEGIN to COMMIT even through the pooler; a direct connection keeps its session.",
    cases: [
      { id: "advisory-pooled", label: "pg-advisory-pooled: session locks through PgBouncer in transaction mode", expect: "pitfall", strategy: "pg-advisory-pooled",
        ...POOLED, watch: ["two-holders", "double-sold"] },
      { id: "advisory-xact", label: "pg-advisory-xact: the transaction-scoped lock, through the same PgBouncer", expect: "fix", strategy: "pg-advisory-xact",
        ...POOLED, watch: ["two-holders", "double-sold", "oversell", "lost-stock"], require: { someBought: true } },
      { id: "advisory-direct", label: "pg-advisory: the session lock on a connection straight to Postgres", expect: "fix", strategy: "pg-advisory",
        ...POOLED, watch: ["two-holders", "double-sold", "oversell", "lost-stock"], require: { someBought: true } },
    ],
  },
  {
    id: "zk-session",
    title: "ZooKeeper: a session expires while the holder is paused",
    tried: "The ZooKeeper lock (an ephemeral sequential znode, held while the client's session lives) with a 600 ms session timeout. One app instance freezes for 3 s after its lease check, just before writing the stock.",
    predict: "The frozen client sends no heartbeat: its session expires and ZooKeeper deletes its znode, so the next buyer holds the lock and sells. The frozen one then writes its old stock: units sold twice. The znode's sequence number as a fencing token makes the store refuse that write; Chubby's lock-delay makes the next holder wait until the old one is done; Chubby's sequencer check, asked after the pause, stops the old holder — though a pause between its answer and the write would not be caught.",
    cases: [
      { id: "zk-unfenced", label: "zookeeper-unfenced, session 600 ms, one 3 s pause", expect: "pitfall", strategy: "zookeeper-unfenced",
        ...SESSION_PAUSE, steps: [load("nginx", 40, 20)], watch: ["oversell", "double-sold"] },
      { id: "zk-fenced", label: "zookeeper: the znode's sequence number fences the write", expect: "fix", strategy: "zookeeper",
        ...SESSION_PAUSE, steps: [load("nginx", 40, 20)], watch: ["oversell", "double-sold", "lost-stock"], require: { staleRefused: true, someBought: true } },
      { id: "zk-lock-delay", label: "zookeeper-unfenced with a 3 s lock-delay", expect: "fix", strategy: "zookeeper-unfenced",
        ...SESSION_PAUSE, lockDelayMs: 3000, steps: [load("nginx", 40, 20)], watch: ["oversell", "double-sold", "lost-stock"], require: { someBought: true } },
      { id: "zk-sequencer", label: "zookeeper-sequencer: asks ZooKeeper whether its znode stands, just before writing", expect: "fix",
        strategy: "zookeeper-sequencer", ...SESSION_PAUSE, steps: [load("nginx", 40, 20)], watch: ["oversell", "double-sold", "lost-stock"],
        require: { someBought: true } },
    ],
  },
  {
    id: "etcd-lease",
    title: "etcd: a lease expires mid-work",
    tried: "etcd's mutex (a key under a 2 s lease, renewed every TTL/3). One app instance freezes for 3.5 s after its lease check, just before writing the stock.",
    predict: "No keepalive reaches etcd: the lease expires, its key is deleted, the next buyer holds and sells, and the frozen one writes its old stock: units sold twice. The key's create revision as a fencing token makes the store refuse it; a lock-delay makes the next holder wait; a sequencer check just before the write stops the old holder, leaving only the gap between its answer and the write.",
    cases: [
      { id: "etcd-unfenced", label: "etcd-unfenced, lease 2 s, one 3.5 s pause", expect: "pitfall", strategy: "etcd-unfenced",
        ...LEASE_PAUSE, steps: [load("nginx", 20, 10)], watch: ["oversell", "double-sold"] },
      { id: "etcd-fenced", label: "etcd: the create revision fences the write", expect: "fix", strategy: "etcd",
        ...LEASE_PAUSE, steps: [load("nginx", 20, 10)], watch: ["oversell", "double-sold", "lost-stock"], require: { staleRefused: true, someBought: true } },
      { id: "etcd-lock-delay", label: "etcd-unfenced with a 4 s lock-delay", expect: "fix", strategy: "etcd-unfenced",
        ...LEASE_PAUSE, lockDelayMs: 4000, steps: [load("nginx", 20, 10)], watch: ["oversell", "double-sold", "lost-stock"], require: { someBought: true } },
      { id: "etcd-sequencer", label: "etcd-sequencer: asks etcd whether its key stands, just before writing", expect: "fix",
        strategy: "etcd-sequencer", ...LEASE_PAUSE, steps: [load("nginx", 20, 10)], watch: ["oversell", "double-sold", "lost-stock"],
        require: { someBought: true } },
    ],
  },
  {
    id: "cp-quorum",
    title: "CP means no lock without a quorum",
    tried: "Two of the three ZooKeeper members (then etcd members) are stopped while buyers keep coming.",
    predict: "ZooKeeper and etcd choose consistency: with no majority they grant no lock at all, so every buyer is told the store is unavailable, and nothing is sold or lost. With the members back, sales resume.",
    cases: [
      { id: "zk-no-quorum", label: "zookeeper, members 2 and 3 stopped", expect: "fix", strategy: "zookeeper", lockTtlMs: 2000, waitTimeoutMs: 3000, workMs: 5,
        initialStock: 20, steps: [{ do: "member", service: "zookeeper", action: "stop", members: [2, 3] }, load("nginx", 20, 10)],
        require: { allUnavailable: true }, watch: ["oversell", "double-sold", "lost-stock", "two-holders"] },
      { id: "etcd-no-quorum", label: "etcd, members 2 and 3 stopped", expect: "fix", strategy: "etcd", lockTtlMs: 2000, waitTimeoutMs: 3000, workMs: 5,
        initialStock: 20, steps: [{ do: "member", service: "etcd", action: "stop", members: [2, 3] }, load("nginx", 20, 10)],
        require: { allUnavailable: true }, watch: ["oversell", "double-sold", "lost-stock", "two-holders"] },
      { id: "quorum-back", label: "zookeeper and etcd members back: sales resume", expect: "fix", strategy: "zookeeper", lockTtlMs: 2000, waitTimeoutMs: 20_000,
        workMs: 5, initialStock: 10, steps: [{ do: "sleep", ms: RECONNECT_MS }, load("nginx", 30, 10)], require: { someBought: true } },
    ],
  },
];
