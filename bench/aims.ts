import { AOF_OFF, AOF_ON, AOF_ROWS, CEILING_LOCAL, CEILING_LOCKS, CEILING_ROUNDS, CURVE_STRATEGIES, PAIRED, PEER_BLOCKS, SERIAL_CEILING, TIMELINE_OFF, TIMELINE_ON, TIMELINE_ROWS, projectLock } from "./labels";
import type { PeerFamily } from "./peers";
import { median, medianInterval, type RowResult } from "./stats";

/**
 * The project's aims as ratios between rows of one run, each held (✓) or missed (✗). Pure, so a
 * unit test can feed it rows. An aim whose rows this run did not measure (BENCH_ONLY, BENCH_LEVEL,
 * BENCH_CURVE=0, a failed row) is left out rather than guessed.
 */
export interface AimTargets {
  /** `redlock` ÷ the best Redlock peer, purchases/s, in-process. @default 3 */
  readonly redlockOverPeer: number;
  /** `redlock`'s p99 ÷ that peer's p99, in-process. @default 1/3 */
  readonly redlockP99OverPeer: number;
  /** The numbers of buyers the Redlock aims are checked at. @default [50, 200] */
  readonly redlockAtBuyers: readonly number[];
  /** `token-lua` ÷ redis-semaphore's Mutex at its best setting, purchases/s, in-process. @default 2 */
  readonly tokenOverMutex: number;
  /** The number of buyers that aim is checked at. @default 50 */
  readonly tokenOverMutexAtBuyers: number;
  /** `token-lua` ÷ `atomic` over HTTP, purchases/s. @default 0.8 */
  readonly tokenOverAtomicHttp: number;
  /** Over the curve, from this many buyers on… @default 50 */
  readonly contendedFromBuyers: number;
  /** …every safe lock keeps at least this share of its purchases/s at every point. @default 0.8 */
  readonly keptUnderContention: number;
  /** Holder timeline recording on ÷ off over HTTP, purchases/s. @default 0.95 */
  readonly timelineOnOverOff: number;
  /** The store node's append-only file on ÷ off, purchases/s over HTTP (README, "Durability"). */
  readonly appendOnlyOnOverOff: number;
  /** In-process, `token-lua` and `redlock` ÷ the serial ceiling (the critical section one at a time, no lock). @default 0.9 */
  readonly ofSerialCeiling: number;
  /** The numbers of buyers that aim is checked at. @default [50, 200] */
  readonly serialCeilingAtBuyers: readonly number[];
}

export const DEFAULT_AIM_TARGETS: AimTargets = Object.freeze({
  redlockOverPeer: 3,
  redlockP99OverPeer: 1 / 3,
  redlockAtBuyers: Object.freeze([50, 200]),
  tokenOverMutex: 2,
  tokenOverMutexAtBuyers: 50,
  tokenOverAtomicHttp: 0.8,
  contendedFromBuyers: 50,
  keptUnderContention: 0.8,
  timelineOnOverOff: 0.95,
  appendOnlyOnOverOff: 0.9,
  ofSerialCeiling: 0.9,
  serialCeilingAtBuyers: Object.freeze([50, 200]),
});

export interface AimInputs {
  /** The main table's rows. */
  readonly table: readonly RowResult[];
  /** The contention curve's points; empty when it was skipped. */
  readonly curve: readonly RowResult[];
  /** Which peer rows belong to which family. */
  readonly peers: readonly { readonly label: string; readonly family: PeerFamily }[];
}

export interface Aim {
  readonly ok: boolean;
  readonly text: string;
}

export const formatAim = (aim: Aim): string => `${aim.ok ? "✓" : "✗"} ${aim.text}`;

const ratio = (part: number, whole: number) => part / Math.max(whole, 1e-9);

/**
 * A figure judged against `aim` (at least, or with `atMost` at most), to `digits` places — or more
 * where fewer would round it onto the aim's other side: 0.8996 against ≥ 0.9 prints 0.8996 ✗, not
 * 0.90 ✗, and 0.3334 against ≤ 1/3 prints 0.3334 ✗, not 0.333 ✗.
 */
export function shown(value: number, aim: number, digits = 2, atMost = false): string {
  const held = (x: number) => (atMost ? x <= aim : x >= aim);
  for (let d = digits; d < 6; d += 1) {
    const printed = value.toFixed(d);
    if (held(Number(printed)) === held(value)) return printed;
  }
  return String(value);
}

/**
 * Each block's on ÷ off (or first ÷ second: the paired row's token-lua ÷ atomic, redlock ÷ its peer), from the rows'
 * windows in measured order (two of each per block), or undefined when the rows carry no windows
 * to pair. A slow moment of the machine spoils one block, not the figure.
 */
export function blockRatios(on: RowResult, off: RowResult): number[] | undefined {
  const ons = on.samples ?? [];
  const offs = off.samples ?? [];
  if (ons.length < 2 || ons.length !== offs.length || ons.length % 2) return undefined;
  const blocks: number[] = [];
  for (let i = 0; i < ons.length; i += 2) blocks.push(ratio(ons[i]! + ons[i + 1]!, offs[i]! + offs[i + 1]!));
  return blocks;
}

/**
 * Each round's first ÷ second, from the two rows' windows in round order (one of each per round):
 * their purchases/s (`samples`), or their CPU per purchase (`cpuSamples`); undefined when the rows
 * carry no such windows to pair.
 */
export function roundRatios(first: RowResult, second: RowResult, of: "samples" | "cpuSamples" = "samples"): number[] | undefined {
  const a = first[of] ?? [];
  const b = second[of] ?? [];
  if (!a.length || a.length !== b.length) return undefined;
  return a.map((value, i) => ratio(value, b[i]!));
}

/** The family's peer row with the most purchases/s in the main table's in-process rows. */
export function bestPeer(inputs: Pick<AimInputs, "table" | "peers">, family: PeerFamily): RowResult | undefined {
  const labels = new Set(inputs.peers.filter((peer) => peer.family === family).map((peer) => peer.label));
  return inputs.table
    .filter((r) => r.level === "in-process" && labels.has(r.label))
    .reduce<RowResult | undefined>((best, r) => (!best || r.purchasesPerSecond > best.purchasesPerSecond ? r : best), undefined);
}

export function aims(inputs: AimInputs, targets: AimTargets = DEFAULT_AIM_TARGETS): Aim[] {
  const { table, curve } = inputs;
  // A row at a given number of buyers: the main table's (longer window) when it ran at that number.
  const at = (level: RowResult["level"], label: string, buyers: number) =>
    [...table, ...curve].find((r) => r.level === level && r.label === label && r.buyers === buyers);
  const out: Aim[] = [];

  const redlockPeer = bestPeer(inputs, "redlock");
  for (const buyers of targets.redlockAtBuyers) {
    if (!redlockPeer) continue;
    // Judged by the blocks of redlock, peer, peer, redlock when they ran, else by single windows.
    const blockedOurs = at("in-process", `redlock${PEER_BLOCKS}`, buyers);
    const blockedTheirs = at("in-process", `${redlockPeer.label}${PEER_BLOCKS}`, buyers);
    const blocks = blockedOurs && blockedTheirs ? blockRatios(blockedOurs, blockedTheirs) : undefined;
    const ours = blocks ? blockedOurs : at("in-process", "redlock", buyers);
    const theirs = blocks ? blockedTheirs : at("in-process", redlockPeer.label, buyers);
    if (!ours || !theirs) continue;
    const how = blocks ? ` (median of ${blocks.length} blocks of redlock, peer, peer, redlock: ${blocks.map((b) => b.toFixed(2)).join(", ")})` : "";
    const against = `redlock ÷ ${redlockPeer.label} (best Redlock peer), in-process at ${buyers} buyers`;
    const throughput = blocks ? median(blocks) : ratio(ours.purchasesPerSecond, theirs.purchasesPerSecond);
    const p99 = ratio(ours.p99, theirs.p99);
    const p99How = blocks ? " (mean of each side's windows)" : "";
    out.push({ ok: throughput >= targets.redlockOverPeer, text: `${against}${how}, purchases/s: ${shown(throughput, targets.redlockOverPeer)} (aim ≥ ${targets.redlockOverPeer})` });
    out.push({ ok: p99 <= targets.redlockP99OverPeer, text: `${against}, p99 latency${p99How}: ${shown(p99, targets.redlockP99OverPeer, 3, true)} (aim ≤ ${targets.redlockP99OverPeer.toFixed(3)})` });
  }

  const mutexPeer = bestPeer(inputs, "mutex");
  const token = at("in-process", "token-lua", targets.tokenOverMutexAtBuyers);
  const mutex = mutexPeer && at("in-process", mutexPeer.label, targets.tokenOverMutexAtBuyers);
  if (token && mutex) {
    const throughput = ratio(token.purchasesPerSecond, mutex.purchasesPerSecond);
    out.push({
      ok: throughput >= targets.tokenOverMutex,
      text: `token-lua ÷ ${mutex.label} (its best setting), in-process at ${mutex.buyers} buyers, purchases/s: ${shown(throughput, targets.tokenOverMutex)} (aim ≥ ${targets.tokenOverMutex})`,
    });
  }

  const find = (level: RowResult["level"], label: string) => table.find((r) => r.level === level && r.label === label);
  // Judged by the paired row's blocks when it ran, else by the main table's single windows.
  const pairedToken = find("http", `token-lua${PAIRED}`);
  const pairedAtomic = find("http", `atomic${PAIRED}`);
  const pairBlocks = pairedToken && pairedAtomic ? blockRatios(pairedToken, pairedAtomic) : undefined;
  const tokenHttp = find("http", "token-lua");
  const atomicHttp = find("http", "atomic");
  if (pairBlocks) {
    const throughput = median(pairBlocks);
    out.push({
      ok: throughput >= targets.tokenOverAtomicHttp,
      text: `token-lua ÷ atomic over HTTP (median of ${pairBlocks.length} blocks of token-lua, atomic, atomic, token-lua: ${pairBlocks.map((b) => b.toFixed(2)).join(", ")}), purchases/s: ${shown(throughput, targets.tokenOverAtomicHttp)} (aim ≥ ${targets.tokenOverAtomicHttp})`,
    });
  } else if (tokenHttp && atomicHttp) {
    const throughput = ratio(tokenHttp.purchasesPerSecond, atomicHttp.purchasesPerSecond);
    out.push({ ok: throughput >= targets.tokenOverAtomicHttp, text: `token-lua ÷ atomic over HTTP, purchases/s: ${shown(throughput, targets.tokenOverAtomicHttp)} (aim ≥ ${targets.tokenOverAtomicHttp})` });
  }

  // What a switch costs a purchase over HTTP, measured on and off in blocks of on, off, off, on.
  const onOff = [
    { rows: TIMELINE_ROWS, on: TIMELINE_ON, off: TIMELINE_OFF, what: "timeline recording", target: targets.timelineOnOverOff },
    { rows: AOF_ROWS, on: AOF_ON, off: AOF_OFF, what: "node 1's append-only file (fsync every second)", target: targets.appendOnlyOnOverOff },
  ];
  for (const { rows, what, target, ...suffix } of onOff) {
    for (const name of rows) {
      const on = find("http", `${name}${suffix.on}`);
      const off = find("http", `${name}${suffix.off}`);
      if (!on || !off) continue;
      const blocks = blockRatios(on, off);
      const onOverOff = blocks ? median(blocks) : ratio(on.purchasesPerSecond, off.purchasesPerSecond);
      const how = blocks
        ? `median of ${blocks.length} blocks of on, off, off, on: ${blocks.map((b) => b.toFixed(3)).join(", ")}`
        : "measured on, off, off, on";
      out.push({ ok: onOverOff >= target, text: `${name} over HTTP, ${what} on ÷ off (${how}), purchases/s: ${shown(onOverOff, target, 3)} (aim ≥ ${target})` });
    }
  }

  // What a lock costs: its purchases/s as a share of the critical section run one at a time with no
  // lock; and `local`, a lock in the process's own memory, faster than both Redis locks.
  for (const buyers of targets.serialCeilingAtBuyers) {
    const ceiling = at("in-process", SERIAL_CEILING, buyers);
    // Judged by the rounds when they ran (ceiling and lock windows a second apart), else by single windows.
    const roundCeiling = at("in-process", `${SERIAL_CEILING}${CEILING_ROUNDS}`, buyers);
    if (!ceiling && !roundCeiling) continue;
    for (const name of CEILING_LOCKS) {
      const roundLock = at("in-process", `${name}${CEILING_ROUNDS}`, buyers);
      const rounds = roundLock && roundCeiling ? roundRatios(roundLock, roundCeiling) : undefined;
      if (rounds) {
        const share = median(rounds);
        const sorted = [...rounds].sort((a, b) => a - b);
        const quartile = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
        const cpu = roundLock!.cpuMicrosPerPurchase !== undefined && roundCeiling!.cpuMicrosPerPurchase !== undefined
          ? `; CPU per purchase ${Math.round(roundLock!.cpuMicrosPerPurchase)} vs ${Math.round(roundCeiling!.cpuMicrosPerPurchase)} µs`
          : "";
        out.push({
          ok: share >= targets.ofSerialCeiling,
          text: `${name} ÷ the serial ceiling, in-process at ${buyers} buyers (median of ${rounds.length} rounds of ceiling, token-lua, redlock, local windows; quartiles ${quartile(0.25).toFixed(2)}–${quartile(0.75).toFixed(2)}, range ${sorted[0]!.toFixed(2)}–${sorted.at(-1)!.toFixed(2)}; means ${Math.round(roundLock!.purchasesPerSecond)} ÷ ${Math.round(roundCeiling!.purchasesPerSecond)}/s${cpu}): ${shown(share, targets.ofSerialCeiling)} (aim ≥ ${targets.ofSerialCeiling})`,
        });
        continue;
      }
      const ours = at("in-process", name, buyers);
      if (!ours || !ceiling) continue;
      const share = ratio(ours.purchasesPerSecond, ceiling.purchasesPerSecond);
      out.push({ ok: share >= targets.ofSerialCeiling, text: `${name} ÷ the serial ceiling, in-process at ${buyers} buyers (${Math.round(ours.purchasesPerSecond)} ÷ ${Math.round(ceiling.purchasesPerSecond)}/s): ${shown(share, targets.ofSerialCeiling)} (aim ≥ ${targets.ofSerialCeiling})` });
    }
    // `local` against both, by the same rounds when they ran: in each round its window ÷ the lock's,
    // windows a second apart; the median of those (local was the faster in most rounds), not the
    // order of two medians of shares of the ceiling, which each carry the ceiling's own windows.
    const localRounds = roundCeiling && at("in-process", `${CEILING_LOCAL}${CEILING_ROUNDS}`, buyers);
    const againstLocks = CEILING_LOCKS.map((name) => {
      const lockRounds = at("in-process", `${name}${CEILING_ROUNDS}`, buyers);
      return {
        name,
        ratios: localRounds && lockRounds ? roundRatios(localRounds, lockRounds) : undefined,
        cpu: localRounds && lockRounds ? roundRatios(localRounds, lockRounds, "cpuSamples") : undefined,
      };
    });
    if (againstLocks.every(({ ratios }) => ratios)) {
      const paired = againstLocks.map(({ name, ratios, cpu }) => ({
        name, median: median(ratios!), interval: medianInterval(ratios!), won: ratios!.filter((r) => r > 1).length, of: ratios!.length,
        // At the serial limit a round trip, not the process, sets the pace, so a lock's own cost shows as
        // the process's CPU per purchase before it shows in the rate: said beside the verdict, not judged.
        cpu: cpu && `CPU per purchase ${median(cpu).toFixed(2)}× the lock's, lower in ${cpu.filter((r) => r < 1).length} of ${cpu.length}`,
      }));
      // Where the interval holds 1 the rounds do not tell the two apart: said, not judged otherwise.
      const level = paired.filter((lock) => lock.interval.low <= 1 && lock.interval.high >= 1).map((lock) => lock.name);
      out.push({
        ok: paired.every((lock) => lock.median > 1),
        text: `local (a lock in the process's memory) faster than token-lua and redlock, in-process at ${buyers} buyers (median over the same rounds of local ÷ the lock: ${paired.map((lock) => `÷ ${lock.name} ${shown(lock.median, 1, 3)} (${Math.floor(lock.interval.coverage * 100)} % interval ${lock.interval.low.toFixed(3)}–${lock.interval.high.toFixed(3)}), faster in ${lock.won} of ${lock.of} rounds${lock.cpu ? `, ${lock.cpu}` : ""}`).join("; ")}${level.length ? `; level with ${level.join(" and ")} within what ${paired[0]!.of} rounds resolve` : ""})`,
      });
      continue;
    }
    const local = at("in-process", "local", buyers);
    const fastest = ["token-lua", "redlock"].flatMap((name) => at("in-process", name, buyers) ?? []);
    if (local && fastest.length) {
      const best = Math.max(...fastest.map((r) => r.purchasesPerSecond));
      out.push({ ok: local.purchasesPerSecond > best, text: `local (a lock in the process's memory) faster than token-lua and redlock, in-process at ${buyers} buyers: ${Math.round(local.purchasesPerSecond)} vs ${Math.round(best)}/s` });
    }
  }

  out.push(...contentionAims(curve, targets));

  const starved = table.filter((r) => projectLock(r.label) && r.starved > 0);
  out.push(starved.length === 0
    ? { ok: true, text: "no buyer of the project's locks starved: every one was served or refused as busy within its wait timeout" }
    : { ok: false, text: `starved buyers in: ${starved.map((r) => `${r.level} ${r.label} (${r.starved})`).join(", ")}` });
  return out;
}

const windowsOf = (point: RowResult) => (point.samples ?? [point.purchasesPerSecond]).map((rate) => Math.round(rate)).join(" + ");

/**
 * Over the curve, per level: each safe lock's worst point from `contendedFromBuyers` on, as a share
 * of its purchases/s there; and no buyer of a safe lock starved at any point.
 */
function contentionAims(curve: readonly RowResult[], targets: AimTargets): Aim[] {
  const out: Aim[] = [];
  const ours = curve.filter((r) => CURVE_STRATEGIES.some((name) => name === r.label));
  for (const level of ["in-process", "http"] as const) {
    for (const name of CURVE_STRATEGIES) {
      const points = ours.filter((r) => r.level === level && r.label === name && r.buyers >= targets.contendedFromBuyers).sort((a, b) => a.buyers - b.buyers);
      const [from, ...later] = points;
      const last = later.at(-1);
      if (!from || !last) continue;
      const worst = later.reduce((low, r) => (r.purchasesPerSecond < low.purchasesPerSecond ? r : low));
      const kept = ratio(worst.purchasesPerSecond, from.purchasesPerSecond);
      const windows = Math.min(from.samples?.length ?? 1, worst.samples?.length ?? 1);
      const how = windows > 1 ? ` (each point the mean of ${windows} windows, up the curve and back down: ${windowsOf(worst)} ÷ ${windowsOf(from)})` : "";
      out.push({
        ok: kept >= targets.keptUnderContention,
        text: `${name} ${level}, ${from.buyers} → ${last.buyers} buyers, purchases/s kept at the worst point (${worst.buyers} buyers)${how}: ${shown(kept, targets.keptUnderContention)} (aim ≥ ${targets.keptUnderContention})`,
      });
    }
  }
  if (ours.length === 0) return out;
  const starved = ours.filter((r) => r.starved > 0);
  out.push(starved.length === 0
    ? { ok: true, text: `no buyer starved at any point of the curve (${ours.length} points of the project's locks)` }
    : { ok: false, text: `starved buyers on the curve: ${starved.map((r) => `${r.level} ${r.label} at ${r.buyers} buyers (${r.starved})`).join(", ")}` });
  return out;
}
