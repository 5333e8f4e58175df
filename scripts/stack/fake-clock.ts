// A server's wall clock that the lab moves, through Debian's libfaketime: the server runs with the
// library preloaded and reads its offset and rate from a file of its own, which this module writes.
// A jump is really seen by the server (Redis' TIME, and the expiry of every key: a lock with 10 s
// left is gone right after a +15 s jump), unlike cutting a key's TTL.
//
// What libfaketime (0.9.10 in Debian 12, a 2024 snapshot of it in Debian 13) does with the file,
// and why each setting:
// - The file holds "+<offset> x<rate>": the faked time is start + offset + (now − start) × rate,
//   where start is when the library started in that process. So a rate change alone would jump
//   by (now − start) × Δrate; the offset written with it cancels that at the moment the server
//   reads the file, which is the next whole real second (below): the clock is continuous there.
// - FAKETIME_CACHE_DURATION=0: the file is read again once per real second, on the first clock
//   call of each new second (Redis reads its clock at least ten times a second). With
//   FAKETIME_NO_CACHE=1 it is read on every wall-clock call, which cost Redis a third of its
//   throughput (redis-benchmark: ~38k vs ~55k ops/s, p50 0.40 vs 0.17 ms); once a second costs
//   nothing measurable, and the route that moves a clock waits until the server reads the new time.
// - FAKETIME_DONT_FAKE_MONOTONIC=1: only the wall clock moves, as in an NTP step. Redis expires keys
//   by the wall clock and runs its timers on the monotonic one, which stays sane.
// - Debian's redis-server allocates with jemalloc, whose initialisation reads the clock; libfaketime,
//   initialising on that first clock call, allocates too (the error of a symbol this libc lacks, its
//   shared memory's sem_open), which lands in jemalloc's unfinished initialisation: the server hangs
//   at start-up (libfaketime issue #130). How that is avoided depends on the library (fakeClockMode):
//   - 0.9.10 ("shim"): glibc's debug-malloc shim (libc_malloc_debug.so.0, part of libc6) preloaded
//     first gives the process glibc's malloc, so neither waits for the other. libfaketime makes
//     /dev/shm/faketime_shm_<pid> and sem.faketime_sem_<pid> in every process it starts in, and
//     removes them only at a clean exit; removeShm() is for the others.
//   - the 2024 snapshot ("ignore-symbols"): FAKETIME_IGNORE_SYMBOLS names the symbols this libc lacks,
//     so libfaketime does not look them up, and FAKETIME_DISABLE_SHM=1 leaves out the shared memory,
//     which a clock read from a file does not use: nothing is allocated inside jemalloc's start.
//     The shim cannot be used with Debian 13's Redis 8: it allocates Lua's memory with jemalloc's
//     own mallocx and asks malloc_usable_size, which the shim answers for a pointer it never gave
//     (SIGSEGV at start-up).
//
// Go programs (etcd) read the clock without libc, so the library cannot move theirs; a JVM's wall
// clock moves (ZooKeeper's sessions run on the monotonic clock, which this leaves alone).

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import type { ChildEnv } from "./processes";

/** Debian's multiarch directory for this machine's libraries. */
const TRIPLET = process.arch === "arm64" ? "aarch64-linux-gnu" : "x86_64-linux-gnu";
export const FAKETIME_LIB = `/usr/lib/${TRIPLET}/faketime/libfaketime.so.1`;
export const MALLOC_SHIM = `/lib/${TRIPLET}/libc_malloc_debug.so.0`;

/** The clock moves the lab accepts: a day either way, a tenth to ten times as fast. */
export const CLOCK_LIMITS = Object.freeze({ maxJumpS: 86_400, minRate: 0.1, maxRate: 10 });

/** How libfaketime is kept out of jemalloc's start-up (see the top of this file). */
export type FakeClockMode = { readonly kind: "shim" } | { readonly kind: "ignore-symbols"; readonly missing: readonly string[] };

/** The symbols libfaketime looks up and this libc lacks, as libfaketime names them ("timer_settime@GLIBC_2.2"). */
export function missingSymbols(debugOutput: string): string[] {
  return [...debugOutput.matchAll(/Cannot find symbol: (\S+)/g)].map((m) => m[1] as string);
}

/**
 * Which way this machine's libfaketime is used: "ignore-symbols" when it knows
 * FAKETIME_IGNORE_SYMBOLS (the symbols to name are found by starting `date` under it with
 * FAKETIME_DEBUG_DLSYM=1), else "shim" when the malloc shim is there; null: no clock can move.
 */
export function chooseFakeClockMode(
  exists: (file: string) => boolean = fs.existsSync,
  libText: () => string = () => fs.readFileSync(FAKETIME_LIB, "latin1"),
  probe: () => string | null = probeSymbols,
): FakeClockMode | null {
  if (!exists(FAKETIME_LIB)) return null;
  if (libText().includes("FAKETIME_IGNORE_SYMBOLS")) {
    const output = probe();
    return output === null ? null : { kind: "ignore-symbols", missing: missingSymbols(output) };
  }
  return exists(MALLOC_SHIM) ? { kind: "shim" } : null;
}

/** `date` under libfaketime with its dlsym debugging on: its stderr, or null if it did not run. */
function probeSymbols(): string | null {
  const probe = spawnSync("date", [], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LD_PRELOAD: FAKETIME_LIB, FAKETIME: "+0", FAKETIME_DEBUG_DLSYM: "1", FAKETIME_DISABLE_SHM: "1" } as ChildEnv as NodeJS.ProcessEnv,
    encoding: "utf8",
    timeout: 5000,
  });
  return probe.status === 0 ? probe.stderr : null;
}

let detected: FakeClockMode | null | undefined;
/** This machine's mode, found once. */
export function fakeClockMode(): FakeClockMode | null {
  if (detected === undefined) detected = chooseFakeClockMode();
  return detected;
}

/** libfaketime can move a server's clock here. */
export function fakeClockAvailable(mode: FakeClockMode | null = fakeClockMode()): boolean {
  return mode !== null;
}

/** The file's line: "+12.500000 x2" (libfaketime reads a leading sign, seconds, then x<rate>). */
export function clockFileText(offsetS: number, rate: number): string {
  const sign = offsetS < 0 ? "-" : "+";
  return `${sign}${Math.abs(offsetS).toFixed(6)} x${rate}\n`;
}

/** The environment that puts a child under the clock kept in `file`. */
export function fakeClockEnv(file: string, mode: FakeClockMode | null = fakeClockMode()): ChildEnv {
  const clock = { FAKETIME_TIMESTAMP_FILE: file, FAKETIME_CACHE_DURATION: "0", FAKETIME_DONT_FAKE_MONOTONIC: "1" };
  if (mode?.kind === "ignore-symbols") {
    return { LD_PRELOAD: FAKETIME_LIB, ...clock, FAKETIME_IGNORE_SYMBOLS: mode.missing.join(","), FAKETIME_DISABLE_SHM: "1" };
  }
  return { LD_PRELOAD: `${MALLOC_SHIM} ${FAKETIME_LIB}`, ...clock };
}

/** What libfaketime leaves in /dev/shm when its process is killed: removed once the pid is gone. */
export function removeShm(pid: number | undefined, shmDir = "/dev/shm"): void {
  if (!pid) return;
  for (const name of [`faketime_shm_${pid}`, `sem.faketime_sem_${pid}`]) fs.rmSync(`${shmDir}/${name}`, { force: true });
}

export interface ClockReading {
  /** How far the server's wall clock is ahead of the real one now (negative: behind), in seconds. */
  readonly offsetS: number;
  /** How fast it runs: 1 is real time. */
  readonly rate: number;
}

/**
 * One server's clock: its file, and what libfaketime computes from it. `start` is when the server
 * process started (libfaketime's own start is within milliseconds of it: a rate change is
 * continuous to that error times the change of rate).
 */
interface Setting {
  readonly offsetS: number;
  readonly rate: number;
}

export class FakeClock {
  private current: Setting = { offsetS: 0, rate: 1 };
  /** What the server reads until it reads the file again, at `switchAtMs`. */
  private previous: Setting | null = null;
  private switchAtMs = 0;
  private startMs: number;

  constructor(
    readonly file: string,
    private readonly now: () => number = Date.now,
  ) {
    this.startMs = now();
  }

  /** The server (re)started now: its clock reads what it read before, at the same rate. */
  processStarted(): void {
    const { offsetS, rate } = this.reading();
    this.startMs = this.now();
    this.current = { offsetS, rate };
    this.previous = null; // a new process reads the file as it starts
    this.write();
  }

  /** How far ahead (or behind) the server's clock is at `atMs` (now by default), and its rate. */
  reading(atMs = this.now()): ClockReading {
    const { offsetS, rate } = this.previous && atMs < this.switchAtMs ? this.previous : this.current;
    return { offsetS: offsetS + ((atMs - this.startMs) / 1000) * (rate - 1), rate };
  }

  /** What the clock will read once the server has read the file (the next whole second). */
  target(): ClockReading {
    return this.reading(Math.max(this.now(), this.switchAtMs));
  }

  /** The clock steps by `seconds` (forward when positive) and keeps its rate. */
  jump(seconds: number): ClockReading {
    return this.change(({ offsetS, rate }) => ({ offsetS: offsetS + seconds, rate }));
  }

  /** From the next second on the clock runs at `rate` (2: twice as fast), without a step. */
  setRate(rate: number): ClockReading {
    return this.change(({ offsetS, rate: before }, switchAtS) => ({ offsetS: offsetS + switchAtS * (before - rate), rate }));
  }

  /** Real time again. */
  reset(): ClockReading {
    return this.change(() => ({ offsetS: 0, rate: 1 }));
  }

  /** The file as libfaketime will read it. */
  text(): string {
    return clockFileText(this.current.offsetS, this.current.rate);
  }

  /**
   * Writes the setting `next` makes of the one in force, given the second (since the process
   * started) at which the server will read it; returns what the clock will then read.
   */
  private change(next: (setting: Setting, switchAtS: number) => Setting): ClockReading {
    const now = this.now();
    const inForce = this.previous && now < this.switchAtMs ? this.previous : this.current;
    this.previous = inForce;
    this.switchAtMs = Math.ceil(now / 1000) * 1000;
    this.current = next(this.current, (this.switchAtMs - this.startMs) / 1000);
    this.write();
    return this.target();
  }

  private write(): void {
    // Written whole and renamed: libfaketime never reads a half-written line.
    const tmp = `${this.file}.tmp`;
    fs.writeFileSync(tmp, this.text());
    fs.renameSync(tmp, this.file);
  }
}
