import { ceilingRoundsApart } from "./ceiling-rounds";
import { serialCeiling } from "./serial-ceiling";
import { getStrategy } from "../lib/locks/registry";
import type { StrategyName } from "../lib/locks/strategies";
import type { UnitLock } from "../lib/purchase/purchase";
import { getRedis } from "../lib/redis";
import { setTimelineRecording } from "../lib/sale/config";
import { runHttp } from "./http";
import { runInProcess } from "./in-process";
import type { CurveSettings, Level } from "./knobs";
import { CEILING_ROW, CURVE_STRATEGIES, PAIRED, PAIRED_ROW, PEER_BLOCKS, PROJECT_ROWS, REDLOCK_PEER_ROW, SERIAL_CEILING, TIMELINE_OFF, TIMELINE_ON, TIMELINE_ROWS, AOF_OFF, AOF_ON, AOF_ROWS } from "./labels";
import { fixedSleepPeer } from "./peers/fixed-sleep";
import type { PeerRow } from "./peers";
import { meanOfAll, type RowResult } from "./stats";
import type { Workload } from "./workload";

export interface Row {
  readonly label: string;
  readonly level: Level;
  readonly buyers: number;
  /** A name BENCH_ONLY may give instead of the label: a peer library's, for both of its rows. */
  readonly group?: string;
  /** One result, or several for a row measured in parts (the timeline's on/off pair, the paired row). */
  run(): Promise<RowResult | RowResult[]>;
}

export function inProcessRow(label: string, lock: () => UnitLock, workload: Workload, group?: string): Row {
  return { label, level: "in-process", buyers: workload.buyers, group, run: () => runInProcess(label, lock(), workload) };
}

export function httpRow(name: StrategyName, workload: Workload, publicUrl: string): Row {
  return { label: name, level: "http", buyers: workload.buyers, run: () => runHttp(publicUrl, name, workload) };
}

export const peerRow = (peer: PeerRow, workload: Workload): Row => inProcessRow(peer.label, peer.lock, workload, peer.peer);

/**
 * The main table: every project lock, the peers and the polling baselines in-process; then every
 * project lock, and the holder timeline's cost, over HTTP.
 */
export function tableRows(workload: Workload, peers: readonly PeerRow[], publicUrl: string, blocks: number): Row[] {
  return [
    inProcessRow(SERIAL_CEILING, serialCeiling, workload),
    ...PROJECT_ROWS.map((name) => inProcessRow(name, () => getStrategy(name), workload)),
    ...peers.map((peer) => peerRow(peer, workload)),
    inProcessRow("fixed-sleep poll 200 ms", () => fixedSleepPeer(200), workload),
    inProcessRow("fixed-sleep poll 50 ms", () => fixedSleepPeer(50), workload),
    ...PROJECT_ROWS.map((name) => httpRow(name, workload, publicUrl)),
    ceilingRow(workload),
    pairedRow(workload, publicUrl, blocks),
    ...TIMELINE_ROWS.map((name) => timelineRow(name, workload, publicUrl, blocks)),
    ...AOF_ROWS.map((name) => appendOnlyRow(name, workload, publicUrl, blocks)),
  ];
}

/**
 * In-process, the serial ceiling and the locks measured against it, in rounds of short windows
 * (bench/ceiling-rounds.ts), in a process of their own (bench/ceiling-child.ts).
 */
function ceilingRow(workload: Workload): Row {
  return { label: CEILING_ROW, level: "in-process", buyers: workload.buyers, run: () => ceilingRoundsApart(workload) };
}

/**
 * `a` and `b` measured in `blocks` blocks of a, b, b, a windows, so that warming up and drifting
 * over the row favour neither side; each side is the mean of its windows and keeps every window's
 * figure (`samples`) in measured order, which the aims pair into blocks (bench/aims.ts blockRatios).
 */
async function inBlocks(blocks: number, a: () => Promise<RowResult>, b: () => Promise<RowResult>): Promise<[RowResult, RowResult]> {
  const as: RowResult[] = [];
  const bs: RowResult[] = [];
  for (let block = 0; block < blocks; block += 1) {
    as.push(await a());
    bs.push(await b());
    bs.push(await b());
    as.push(await a());
  }
  return [meanOfAll(as), meanOfAll(bs)];
}

/**
 * `token-lua` against `atomic` over HTTP in `blocks` blocks of token-lua, atomic, atomic, token-lua
 * windows: the main table measures each once, minutes apart, and single 4 s windows on this machine
 * move by about ±7 %, as much as the distance between the aim and the figure. Each side is the mean
 * of its windows and keeps every window's figure (`samples`) for the aim's blocks.
 */
function pairedRow(workload: Workload, publicUrl: string, blocks: number): Row {
  return {
    label: PAIRED_ROW,
    level: "http",
    buyers: workload.buyers,
    async run() {
      const measure = (name: StrategyName) => () => runHttp(publicUrl, name, workload, `${name}${PAIRED}`);
      return inBlocks(blocks, measure("token-lua"), measure("atomic"));
    },
  };
}

/**
 * `redlock` against the best Redlock peer of the main table (`peer`), in-process, at each of
 * `buyersList`, in `blocks` blocks of redlock, peer, peer, redlock windows. The main table and the
 * curve measure each once, minutes apart: in be5d3d3's full run the table's single 4 s window of
 * `redlock` at 50 buyers read 3,658/s while the same lock read 5,562/s on the curve and 5,666/s over
 * the ceiling's rounds, and the aim (≥ 3× the peer) read 2.98. Each side is the mean of its windows
 * and keeps every window's figure (`samples`) for the aim's blocks; each side's p99 is the mean of
 * its windows' p99.
 */
export function redlockPeerRows(peer: PeerRow, workload: Workload, buyersList: readonly number[], blocks: number): Row[] {
  return buyersList.map((buyers) => ({
    label: REDLOCK_PEER_ROW,
    level: "in-process",
    buyers,
    async run() {
      const at: Workload = { ...workload, buyers };
      const ours = getStrategy("redlock");
      const theirs = peer.lock();
      return inBlocks(
        blocks,
        () => runInProcess(`redlock${PEER_BLOCKS}`, ours, at),
        () => runInProcess(`${peer.label}${PEER_BLOCKS}`, theirs, at),
      );
    },
  }));
}

/**
 * A curve point's window grows with its buyers (CURVE_MS_PER_BUYER each, up to MAX_CURVE_WINDOW_MS):
 * all of a point's buyers arrive at once, and over HTTP parsing 1,000 requests together takes the
 * two cores a few seconds before the line settles. Measured in a 3 s window, token-lua at 1,000
 * buyers over HTTP read 258/s; in a 14 s window, 332/s, as much as at 50 buyers.
 */
const CURVE_MS_PER_BUYER = 12;
const MAX_CURVE_WINDOW_MS = 15_000;

export const curveWindowMs = (curveWindow: number, buyers: number) =>
  Math.max(curveWindow, Math.min(MAX_CURVE_WINDOW_MS, buyers * CURVE_MS_PER_BUYER));

/**
 * The contention curve: the safe locks in-process and over HTTP, and the given peers (the best of
 * each family) in-process only, at each number of buyers, in a window that grows with the buyers.
 *
 * Then the way back down: the safe locks' points from `returnFromBuyers` on again, in the mirror
 * order (HTTP first, most buyers first), so each of those points is two windows whose mean sits at
 * the same moment of the run for every point. The contention aim divides one point by another
 * measured minutes apart; single windows on this machine move by about ±7 %, so one window each
 * could move that ratio by more than its distance to the aim, and a machine slowing over the
 * curve would count against the later points. `mergeWindows` makes each point one result.
 */
export function curveRows(curve: CurveSettings, peers: readonly PeerRow[], workload: Workload, publicUrl: string, returnFromBuyers?: number): Row[] {
  const at = (buyers: number): Workload => ({ ...workload, buyers, windowMs: curveWindowMs(curve.windowMs, buyers) });
  const back = returnFromBuyers === undefined ? [] : curve.buyers.filter((buyers) => buyers >= returnFromBuyers).reverse();
  return [
    ...curve.buyers.flatMap((buyers) => [
      inProcessRow(SERIAL_CEILING, serialCeiling, at(buyers)),
      inProcessRow("local", () => getStrategy("local"), at(buyers)),
      ...CURVE_STRATEGIES.map((name) => inProcessRow(name, () => getStrategy(name), at(buyers))),
      ...peers.map((peer) => peerRow(peer, at(buyers))),
    ]),
    ...curve.buyers.flatMap((buyers) => CURVE_STRATEGIES.map((name) => httpRow(name, at(buyers), publicUrl))),
    // Back down only when there is a ratio to steady: two points or more.
    ...(back.length < 2 ? [] : [
      ...back.flatMap((buyers) => CURVE_STRATEGIES.map((name) => httpRow(name, at(buyers), publicUrl))),
      ...back.flatMap((buyers) => CURVE_STRATEGIES.map((name) => inProcessRow(name, () => getStrategy(name), at(buyers)))),
    ]),
  ];
}

/**
 * One result per point (level, lock, buyers), in the order first measured: a point measured on the
 * way up and back down becomes the mean of its windows, each window's purchases/s kept (`samples`).
 */
export function mergeWindows(results: readonly RowResult[]): RowResult[] {
  const points = new Map<string, RowResult[]>();
  for (const result of results) {
    const key = `${result.level}\u0000${result.label}\u0000${result.buyers}`;
    points.set(key, [...(points.get(key) ?? []), result]);
  }
  return [...points.values()].map((windows) => (windows.length === 1 ? windows[0]! : meanOfAll(windows)));
}

/**
 * The holder timeline's cost: recording on and off in `blocks` blocks of on, off, off, on, so that
 * warming up and drifting over the run favour neither side. Each side is the mean of its windows
 * and keeps every window's figure (`samples`): the aim compares the blocks, whose spread is the
 * noise the figure carries.
 */
function timelineRow(name: StrategyName, workload: Workload, publicUrl: string, blocks: number): Row {
  return {
    label: `${name}${TIMELINE_ON}`,
    level: "http",
    buyers: workload.buyers,
    async run() {
      const measure = async (on: boolean) => {
        await setTimelineRecording(on);
        return runHttp(publicUrl, name, workload, `${name}${on ? TIMELINE_ON : TIMELINE_OFF}`);
      };
      try {
        return await inBlocks(blocks, () => measure(true), () => measure(false));
      } finally {
        await setTimelineRecording(true);
      }
    },
  };
}

/** Node 1's append-only file on or off, as `CONFIG GET appendonly` reads it afterwards. */
async function setAppendOnly(on: boolean): Promise<void> {
  const redis = getRedis();
  await redis.config("SET", "appendonly", on ? "yes" : "no");
  // Turned on, Redis rewrites the file from memory in a child first: measure once that is done.
  for (let i = 0; i < 100; i++) {
    const info = await redis.info("persistence");
    if (!/aof_rewrite_in_progress:1|aof_rewrite_scheduled:1/.test(info)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * What the store node's append-only file costs a purchase: its rows with the file on and off, in
 * `blocks` blocks of on, off, off, on, as the timeline's cost is measured. The file is left as the
 * stack started it (on) whatever happens.
 */
function appendOnlyRow(name: StrategyName, workload: Workload, publicUrl: string, blocks: number): Row {
  return {
    label: `${name}${AOF_ON}`,
    level: "http",
    buyers: workload.buyers,
    async run() {
      const wasOn = ((await getRedis().config("GET", "appendonly")) as string[])[1] === "yes";
      const measure = async (on: boolean) => {
        await setAppendOnly(on);
        return runHttp(publicUrl, name, workload, `${name}${on ? AOF_ON : AOF_OFF}`);
      };
      try {
        return await inBlocks(blocks, () => measure(true), () => measure(false));
      } finally {
        await setAppendOnly(wasOn);
      }
    },
  };
}
