import type { LabCase, LabScenario, LabStep, Via } from "./scenario-types";

/**
 * The failures only a network can cause (the articles' most vivid ones, as Jepsen shows them): a
 * client cut off from some servers while it still reaches others, and a server whose clock really
 * jumps. Cuts are real packet drops (scripts/stack/network.ts): connections stay open and calls
 * hang until their own timeouts. Clocks are the Redis nodes' own, moved by libfaketime.
 */
const buyer = (via: Via): LabStep => ({ do: "load", via, buyers: 1, concurrency: 1, background: true });
const holderInside: LabStep = { do: "wait-until", what: "holder-inside", timeoutMs: 5000 };

/**
 * The write in flight: app-1 holds the token lock, reads, and is cut off from the stock's node in
 * one direction just after: its write leaves, and is dropped. Its lease (2 s) runs out; app-2 takes
 * the lock, reads the same stock and sells. The link heals; TCP delivers app-1's old write.
 */
const WRITE_IN_FLIGHT = {
  lockTtlMs: 2000, waitTimeoutMs: 8000, workMs: 1200, initialStock: 5,
  steps: [
    buyer("app-1"), holderInside,
    { do: "cut", cuts: [{ client: "app-1", server: "redis-1", direction: "to-server" }] },
    buyer("app-2"),
    // app-2 gets the lock when the 2 s TTL runs out and reads the stock app-1 read: then the link heals.
    { do: "wait-until", what: "second-holder-inside", timeoutMs: 8000 },
    { do: "heal" },
    // TCP retransmits on its own backed-off timer (0.2, 0.6, 1.4, 3 s after the send): the held write
    // lands about 1.4 s after it left, inside app-1's 2 s command timeout, and counts app-1 out.
    { do: "wait-until", what: "no-holder-inside", timeoutMs: 20_000 },
    { do: "await-load" },
  ],
} as const satisfies Omit<LabCase, "id" | "label" | "expect" | "strategy">;

/**
 * Kleppmann's Redlock example: app-1 reaches nodes 1–3 only, app-2 every node but 2. app-1 takes
 * the lock on 1, 2 and 3 (a bare majority); node 3's clock jumps 10 s ahead, so its copy expires;
 * app-2 then gets 3, 4 and 5 — a majority too — while app-1 still works.
 */
const ASYMMETRIC = {
  lockTtlMs: 6000, waitTimeoutMs: 10_000, workMs: 3000, initialStock: 5,
  steps: [
    { do: "cut", cuts: [
      { client: "app-1", server: "redis-4" }, { client: "app-1", server: "redis-5" }, { client: "app-2", server: "redis-2" },
    ] },
    buyer("app-1"), holderInside,
    { do: "jump-clock", node: 3, jumpS: 10 },
    buyer("app-2"),
    { do: "await-load" },
  ],
} as const satisfies Omit<LabCase, "id" | "label" | "expect" | "strategy">;

/**
 * app-1 holds the ZooKeeper lock and is cut off from all three members (it still reaches the
 * stock's node): its session expires on the ensemble after 2 s, its znode goes, and app-2's
 * buyer, waiting behind it, holds. app-1 knows nothing until it reconnects, and finishes its work.
 */
const ZK_CUT_OFF = {
  lockTtlMs: 2000, waitTimeoutMs: 12_000, workMs: 5000, initialStock: 5,
  steps: [
    // A session an earlier cut expired is noticed only once the client reaches the ensemble again.
    { do: "wait-until", what: "instances-ready", timeoutMs: 20_000 },
    buyer("app-1"), holderInside,
    { do: "cut", cuts: [1, 2, 3].map((member) => ({ client: "app-1", server: `zookeeper-${member}` })) },
    buyer("app-2"),
    { do: "await-load" },
  ],
} as const satisfies Omit<LabCase, "id" | "label" | "expect" | "strategy">;

/** etcd member 1 cut off from its two peers, both ways, while buyers keep coming through every member. */
const ETCD_MINORITY = {
  lockTtlMs: 2000, waitTimeoutMs: 8000, workMs: 5, initialStock: 20,
  steps: [
    { do: "cut", cuts: [2, 3].flatMap((peer) => [
      { client: "etcd-1", server: `etcd-${peer}-peer` }, { client: `etcd-${peer}`, server: "etcd-1-peer" },
    ]) },
    // Long enough for the two to elect a leader of their own, if member 1 led.
    { do: "sleep", ms: 2500 },
    { do: "load", via: "nginx", buyers: 40, concurrency: 8 },
    { do: "heal" },
    { do: "wait-until", what: "instances-ready", timeoutMs: 20_000 },
    { do: "load", via: "nginx", buyers: 10, concurrency: 2 },
  ],
} as const satisfies Omit<LabCase, "id" | "label" | "expect" | "strategy">;

/**
 * Split brain, in two cuts. First the replica stops hearing the primary, and a buyer on app-1 takes
 * the lock there (so only the primary has it). Then the primary is cut off from the three Sentinels
 * too, and app-1 from the Sentinels (it keeps the primary it knows); app-2 reaches everything but the
 * old primary. The Sentinels promote the replica and app-2 follows them: a second buyer locks there.
 */
const REPLICATION_CUT = { client: "replica", server: "primary" } as const;
const splitBrain = (before: readonly LabStep[] = []) => ({
  lockTtlMs: 10_000, waitTimeoutMs: 10_000, workMs: 6000, initialStock: 5,
  steps: [
    // The pair settled (an earlier card may have just failed over: the lab's reset makes its old
    // primary the new one's replica, and the link must come up), then both instances' clients on
    // the primary the Sentinels name.
    { do: "wait-until", what: "sentinel-pair-settled", timeoutMs: 30_000 },
    { do: "wait-until", what: "instances-ready", timeoutMs: 20_000 },
    ...before,
    { do: "cut", cuts: [REPLICATION_CUT] },
    buyer("app-1"), { do: "wait-until", what: "holder-inside", timeoutMs: 3000, orGoOn: true },
    { do: "cut", cuts: [
      REPLICATION_CUT,
      ...[1, 2, 3].map((n) => ({ client: `sentinel-${n}`, server: "primary" })),
      ...[1, 2, 3].map((n) => ({ client: "app-1", server: `sentinel-${n}` })),
      { client: "app-2", server: "primary" },
    ] },
    { do: "await-failover", timeoutMs: 15_000 },
    // app-2's client hears of the new primary from the Sentinels and reconnects to it.
    { do: "sleep", ms: 1000 },
    buyer("app-2"),
    { do: "await-load" },
  ] satisfies LabStep[],
});

export const NETWORK_SCENARIOS: readonly LabScenario[] = [
  {
    id: "split-brain",
    title: "Sentinel split brain",
    tried: "The replica stops hearing the Sentinel-managed primary, and a buyer on app-1 takes the lock there and works 6 s. Then the primary is cut off from the three Sentinels too, and app-1 from the Sentinels; app-1 still reaches the old primary, app-2 everything but it. The Sentinels promote the replica, and a buyer on app-2 asks for the lock.",
    predict: "Two primaries: the old one, still reached by app-1, and the promoted replica, which app-2 follows. Each grants the lock: two holders, a unit sold twice. min-replicas-to-write 1 (max lag 1 s) makes a primary refuse writes once its replica has been silent past the lag: the promoted one, with no replica of its own, refuses app-2 — at most one side holds while the pair is split (availability is what it costs), and a window of that lag stays open right after the cut. A fencing token from one counter the stock store checks refuses the older holder whatever the primaries say.",
    cases: [
      { id: "split-brain", label: "sentinel: two primaries after a partition", expect: "pitfall", strategy: "sentinel", ...splitBrain(),
        watch: ["two-holders", "double-sold"] },
      // No primary without a replica acknowledging takes the lock: the promoted one refuses app-2 (and the old one refuses app-1 once the lag has passed).
      { id: "split-brain-min-replicas", label: "sentinel with min-replicas-to-write 1, max lag 1 s: no primary without its replica takes the lock", expect: "fix",
        strategy: "sentinel", ...splitBrain([{ do: "min-replicas", replicas: 1, maxLagS: 1 }]), watch: ["two-holders", "double-sold", "oversell", "lost-stock"] },
      { id: "split-brain-fenced", label: "sentinel-fenced: a token from the stock's node, checked by the store", expect: "fix", strategy: "sentinel-fenced",
        ...splitBrain(), watch: ["double-sold", "oversell", "lost-stock"], require: { staleRefused: true, someBought: true } },
    ],
  },
  {
    id: "write-in-flight",
    title: "A write in flight when the lease runs out",
    tried: "app-1 holds the token lock (2 s TTL), reads the stock, and works 1.2 s; just after its read, its packets to the stock's Redis node are dropped (a one-way cut). Its write leaves on time and is lost in the network; the link heals once app-2's buyer holds the lock.",
    predict: "app-1 checked its lease before writing and found time left: the write was sent in time. But it arrives late: the lease ran out meanwhile, app-2 took the lock, read the same stock and sold it. When the network delivers app-1's write, the unit is sold twice. No check made before sending can see a delay after it; a fencing token checked by the store refuses the late write.",
    cases: [
      { id: "in-flight", label: "token-lua, app-1's write held in the network past its lease", expect: "pitfall", strategy: "token-lua", ...WRITE_IN_FLIGHT,
        watch: ["double-sold", "oversell", "two-holders"] },
      { id: "in-flight-fenced", label: "token-fencing: the store refuses the late write's older token", expect: "fix", strategy: "token-fencing", ...WRITE_IN_FLIGHT,
        watch: ["double-sold", "oversell", "lost-stock"], require: { staleRefused: true, someBought: true } },
    ],
  },
  {
    id: "redlock-partition",
    title: "Redlock: an asymmetric partition and a clock jump",
    tried: "A grudge: app-1 reaches Redis nodes 1–3 only, app-2 every node but 2. app-1 takes the lock on nodes 1, 2 and 3 and works 3 s; then node 3's wall clock jumps 10 s ahead (libfaketime), and app-2 asks for the lock.",
    predict: "Node 3's copy of app-1's lock expires with its clock. app-2 gets nodes 3, 4 and 5: a majority, while app-1 still believes it holds 1, 2 and 3 — both read the same stock and sell the same unit (Kleppmann's example). Redlock's validity check counts only the time spent acquiring; it cannot see a node's clock. A fencing token checked by the store makes app-1's late write fail.",
    cases: [
      { id: "partition-jump", label: "redlock, app-1 ↔ nodes 4, 5 and app-2 ↔ node 2 cut, node 3 jumps 10 s", expect: "pitfall", strategy: "redlock", ...ASYMMETRIC,
        watch: ["two-holders", "double-sold"] },
      { id: "partition-jump-fenced", label: "redlock-fenced: a token from the stock's node, checked by the store", expect: "fix", strategy: "redlock-fenced", ...ASYMMETRIC,
        watch: ["double-sold", "oversell", "lost-stock"], require: { staleRefused: true, someBought: true } },
    ],
  },
  {
    id: "zk-cut-off",
    title: "ZooKeeper: a client cut off from the ensemble, not from the stock",
    tried: "app-1 holds the ZooKeeper lock (2 s session) and works 5 s; just after its read, every link between app-1 and the three members is cut both ways. It still reaches the stock's Redis node. app-2's buyer waits for the lock.",
    predict: "The ensemble hears nothing from app-1: its session expires, its znode is deleted, and app-2 holds. app-1, cut off, is told nothing and writes its old stock when its work is done: a unit sold twice. The znode's sequence number as a fencing token (and a holder that counts its session's time) stops it; so does Chubby's sequencer check — asking the ensemble before writing fails while the link is cut.",
    cases: [
      { id: "zk-cut-unfenced", label: "zookeeper-unfenced (as usually written: it trusts its lock), app-1 cut from the ensemble", expect: "pitfall",
        strategy: "zookeeper-unfenced", ...ZK_CUT_OFF, watch: ["double-sold", "oversell"] },
      { id: "zk-cut-fenced", label: "zookeeper: fenced, and the holder checks its session's time left", expect: "fix", strategy: "zookeeper", ...ZK_CUT_OFF,
        watch: ["double-sold", "oversell", "lost-stock"], require: { someBought: true } },
      { id: "zk-cut-sequencer", label: "zookeeper-sequencer: asks the ensemble whether its znode stands before writing", expect: "fix",
        strategy: "zookeeper-sequencer", ...ZK_CUT_OFF, watch: ["double-sold", "oversell", "lost-stock"], require: { someBought: true } },
    ],
  },
  {
    id: "etcd-minority",
    title: "etcd: a member cut off from its peers",
    tried: "etcd member 1 is cut off from members 2 and 3 (both ways), while the app's clients still reach all three. 40 buyers come through nginx under the etcd lock.",
    predict: "Member 1 is a minority of one: it cannot commit anything, and a lock is a write (a key under a lease, in a transaction) that only a quorum can commit. A client whose calls land on member 1 waits and fails: buyers are answered 503 — nothing sold, nothing lost, nothing sold twice (CP: safe, not available through that member). A read member 1 served alone (serializable) could be stale; the lock never relies on one — every step is a linearizable request through the Raft leader. Healed, the sale goes on.",
    cases: [
      { id: "etcd-minority-fenced", label: "etcd, member 1 cut from its peers", expect: "fix", strategy: "etcd", ...ETCD_MINORITY,
        watch: ["double-sold", "oversell", "lost-stock"], require: { someBought: true } },
      { id: "etcd-minority-unfenced", label: "etcd-unfenced, member 1 cut from its peers: the quorum keeps even the unfenced lock whole", expect: "fix",
        strategy: "etcd-unfenced", ...ETCD_MINORITY, watch: ["double-sold", "oversell", "lost-stock"], require: { someBought: true } },
    ],
  },
];
