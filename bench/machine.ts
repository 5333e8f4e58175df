import fs from "node:fs";

/**
 * The machine's state while a run was measured, printed with its figures: this is a virtual
 * machine on a shared host, whose speed moves by 2× from one evening to the next, and a run's rows
 * are comparable with each other, not with another run's, unless the machine was the same. Two
 * readings: how long a fixed piece of JavaScript takes (a CPU probe), and how much of the CPU time
 * the host took for others while the run went on (`steal` in /proc/stat).
 */

/** A fixed piece of work on one core, in ms: the same number of steps on every run, so a slower machine reads higher. */
export function cpuProbeMs(): number {
  const started = performance.now();
  let x = 1;
  for (let i = 0; i < 20_000_000; i += 1) x = (x * 48271 + i) % 2147483647;
  if (x === -1) throw new Error("unreachable: keeps the loop from being optimised away");
  return performance.now() - started;
}

/** The machine's CPU time so far (all cores, in clock ticks) and the part of it the host stole. */
export interface CpuTimes {
  readonly total: number;
  readonly steal: number;
}

/** From /proc/stat's first line: user nice system idle iowait irq softirq steal guest guest_nice. */
export function cpuTimesFrom(procStat: string): CpuTimes | undefined {
  const line = procStat.split("\n").find((l) => l.startsWith("cpu "));
  const fields = line?.trim().split(/\s+/).slice(1, 9).map(Number);
  if (!fields || fields.length < 8 || fields.some((n) => !Number.isFinite(n))) return undefined;
  return { total: fields.reduce((sum, n) => sum + n, 0), steal: fields[7]! };
}

export function readCpuTimes(): CpuTimes | undefined {
  try {
    return cpuTimesFrom(fs.readFileSync("/proc/stat", "utf8"));
  } catch {
    return undefined; // not Linux: no steal to report
  }
}

/** The share of the machine's CPU time between two readings that the host took for others. */
export function stealShare(from: CpuTimes | undefined, to: CpuTimes | undefined): number | undefined {
  if (!from || !to || to.total <= from.total) return undefined;
  return (to.steal - from.steal) / (to.total - from.total);
}

const percent = (share: number | undefined) => (share === undefined ? "—" : `${(100 * share).toFixed(1)} %`);

/** The line a run ends with: the probe before and after, and the host's share of each part's CPU time. */
export function machineLine(probeBeforeMs: number, probeAfterMs: number, parts: readonly { readonly name: string; readonly share: number | undefined }[]): string {
  return `machine: CPU probe ${Math.round(probeBeforeMs)} ms before the run, ${Math.round(probeAfterMs)} ms after (the same work each time: higher is a slower machine)`
    + ` · CPU time the host took for others (steal): ${parts.map((part) => `${part.name} ${percent(part.share)}`).join(", ")}`;
}
