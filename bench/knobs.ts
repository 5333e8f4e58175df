import type { RowResult } from "./stats";
import { DEFAULT_WORKLOAD, type Workload } from "./workload";

/** The benchmark's env knobs, parsed once. Pure: no stack needed. */

export type Level = RowResult["level"];
const LEVELS: readonly Level[] = ["in-process", "http"];

export interface CurveSettings {
  /** Buyers in flight at each point of the curve, ascending. @default [10, 50, 200, 1000] */
  readonly buyers: readonly number[];
  /** Window of each point: short, so the whole run stays inside its hard limit. @default 3000 */
  readonly windowMs: number;
}

export const DEFAULT_CURVE: CurveSettings = Object.freeze({ buyers: Object.freeze([10, 50, 200, 1000]), windowMs: 3000 });
export const DEFAULT_CHART_PATH = "docs/bench-contention.svg";
/** A row's window longer than this would only make the run long, not the figure better. */
const MAX_WINDOW_MS = 30_000;

export interface Knobs {
  readonly workload: Workload;
  /** BENCH_ONLY: row labels, peer library names, or either as `level:name`; empty keeps every row. */
  readonly only: readonly string[];
  readonly level?: Level;
  /** Absent when BENCH_CURVE=0. */
  readonly curve?: CurveSettings;
  /** Where the curve's chart is written, relative to the working directory. */
  readonly chartPath: string;
  /**
   * BENCH_BLOCKS: blocks of A, B, B, A windows for the ratios
   * measured in blocks — the holder timeline's cost (on, off), token-lua ÷ atomic over HTTP, and
   * redlock ÷ its best peer in-process. @default 5
   * (with three, one slow block of the machine's decided the median: the timeline row read 0.931
   * from blocks 0.984, 0.931, 0.926 and 0.959 from six an hour later; docs/benchmarks.md)
   */
  readonly blocks: number;
}

export const DEFAULT_BLOCKS = 5;

/** A knob set to something the benchmark cannot use; the message names the knob and what it takes. */
export class KnobError extends Error {
  override name = "KnobError";
}

type Env = Readonly<Record<string, string | undefined>>;

function positiveInt(env: Env, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new KnobError(`${name} must be a positive integer, got ${raw}`);
  return value;
}

function list(raw: string | undefined): string[] {
  return (raw ?? "").split(",").map((s) => s.trim()).filter(Boolean);
}

function curveSettings(env: Env): CurveSettings | undefined {
  const enabled = env.BENCH_CURVE?.trim() || "1";
  if (enabled === "0") return undefined;
  if (enabled !== "1") throw new KnobError(`BENCH_CURVE must be 0 (skip the contention curve) or 1, got ${enabled}`);
  const buyers = list(env.BENCH_CURVE_BUYERS).map((raw) => {
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 1) throw new KnobError(`BENCH_CURVE_BUYERS must list positive integers, like 10,50,200,1000; got ${raw}`);
    return value;
  });
  return {
    buyers: buyers.length ? [...new Set(buyers)].sort((a, b) => a - b) : DEFAULT_CURVE.buyers,
    windowMs: Math.min(positiveInt(env, "BENCH_CURVE_WINDOW_MS", DEFAULT_CURVE.windowMs), MAX_WINDOW_MS),
  };
}

export function readKnobs(env: Env): Knobs {
  const level = env.BENCH_LEVEL?.trim() || undefined;
  if (level && !LEVELS.includes(level as Level)) throw new KnobError(`BENCH_LEVEL must be ${LEVELS.join(" or ")}, got ${level}`);
  return {
    workload: {
      ...DEFAULT_WORKLOAD,
      buyers: positiveInt(env, "BENCH_BUYERS", DEFAULT_WORKLOAD.buyers),
      windowMs: Math.min(positiveInt(env, "BENCH_WINDOW_MS", DEFAULT_WORKLOAD.windowMs), MAX_WINDOW_MS),
    },
    only: list(env.BENCH_ONLY),
    level: level as Level | undefined,
    curve: curveSettings(env),
    chartPath: env.BENCH_CHART?.trim() || DEFAULT_CHART_PATH,
    blocks: Math.min(positiveInt(env, "BENCH_BLOCKS", DEFAULT_BLOCKS), 10),
  };
}

/**
 * BENCH_ONLY and BENCH_LEVEL as a row filter: a row is kept when its level is the one asked (if
 * any) and an entry of `only` (if any) names its label or its group (a peer library's name, for
 * both of its rows), optionally as `level:name`.
 */
export function rowFilter(only: readonly string[], level?: Level) {
  return (row: { readonly label: string; readonly level: Level; readonly group?: string }): boolean =>
    (!level || row.level === level)
    && (only.length === 0 || only.some((entry) => {
      const name = entry.startsWith(`${row.level}:`) ? entry.slice(row.level.length + 1) : entry;
      return name === row.label || name === row.group;
    }));
}
