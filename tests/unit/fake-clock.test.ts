/**
 * A Redis node's clock as the lab moves it: the line libfaketime reads, what the node's clock
 * reads after a jump, a rate change, a restart and a reset (computed as libfaketime computes it),
 * and the clock changes the control API accepts. tests/network/ checks a real redis-server.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { HttpError } from "../../scripts/stack/errors";
import {
  FAKETIME_LIB,
  FakeClock,
  MALLOC_SHIM,
  chooseFakeClockMode,
  clockFileText,
  fakeClockAvailable,
  fakeClockEnv,
  missingSymbols,
  removeShm,
} from "../../scripts/stack/fake-clock";
import { parseClockChange } from "../../scripts/stack/services/redis";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});
function tmpDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "locklab-clock-"));
  dirs.push(dir);
  return dir;
}

/** libfaketime's formula: start + offset + (now − start) × rate, for the line in the file. */
function fakedAt(line: string, startMs: number, nowMs: number): number {
  const m = /^([+-]\d+(?:\.\d+)?) x(\d+(?:\.\d+)?)$/.exec(line.trim());
  if (!m) throw new Error(`libfaketime would not read ${line}`);
  return startMs + Number(m[1]) * 1000 + (nowMs - startMs) * Number(m[2]);
}

describe("a node's clock file", () => {
  it("says offset and rate the way libfaketime reads them", () => {
    expect(clockFileText(0, 1)).toBe("+0.000000 x1\n");
    expect(clockFileText(15, 1)).toBe("+15.000000 x1\n");
    expect(clockFileText(-2.5, 2)).toBe("-2.500000 x2\n");
  });

  it("puts the malloc shim before libfaketime 0.9.10 and leaves the monotonic clock alone", () => {
    expect(fakeClockEnv("/x/clock", { kind: "shim" })).toEqual({
      LD_PRELOAD: `${MALLOC_SHIM} ${FAKETIME_LIB}`,
      FAKETIME_TIMESTAMP_FILE: "/x/clock",
      FAKETIME_CACHE_DURATION: "0",
      FAKETIME_DONT_FAKE_MONOTONIC: "1",
    });
    expect(MALLOC_SHIM).toMatch(/^\/lib\/[a-z0-9_]+-linux-gnu\/libc_malloc_debug\.so\.0$/);
  });

  it("with a libfaketime that can ignore symbols, names the ones this libc lacks and uses no shim and no shared memory", () => {
    const mode = { kind: "ignore-symbols", missing: ["__ftime", "timer_settime@GLIBC_2.2"] } as const;
    expect(fakeClockEnv("/x/clock", mode)).toEqual({
      LD_PRELOAD: FAKETIME_LIB,
      FAKETIME_TIMESTAMP_FILE: "/x/clock",
      FAKETIME_CACHE_DURATION: "0",
      FAKETIME_DONT_FAKE_MONOTONIC: "1",
      FAKETIME_IGNORE_SYMBOLS: "__ftime,timer_settime@GLIBC_2.2",
      FAKETIME_DISABLE_SHM: "1",
    });
    // What libfaketime prints with FAKETIME_DEBUG_DLSYM=1 (Debian 13's, under `date`).
    const debug = "[FAKETIME_DEBUG_DLSYM] Cannot find symbol: __ftime\n[FAKETIME_DEBUG_DLSYM] Cannot find symbol: timer_settime@GLIBC_2.2\n";
    expect(missingSymbols(debug)).toEqual(mode.missing);
    expect(missingSymbols("")).toEqual([]);
  });

  it("chooses the way by what the installed libfaketime knows, and none without it", () => {
    const all = () => true;
    const probe = () => "[FAKETIME_DEBUG_DLSYM] Cannot find symbol: __ftime\n";
    expect(chooseFakeClockMode(all, () => "…FAKETIME_IGNORE_SYMBOLS…", probe)).toEqual({ kind: "ignore-symbols", missing: ["__ftime"] });
    expect(chooseFakeClockMode(all, () => "…FAKETIME_NO_CACHE…", probe)).toEqual({ kind: "shim" });
    // 0.9.10 without the shim, no libfaketime at all, or a probe that did not run: no clock moves.
    expect(chooseFakeClockMode((file) => file === FAKETIME_LIB, () => "", probe)).toBeNull();
    expect(chooseFakeClockMode(() => false, () => "", probe)).toBeNull();
    expect(chooseFakeClockMode(all, () => "FAKETIME_IGNORE_SYMBOLS", () => null)).toBeNull();
    expect(fakeClockAvailable(null)).toBe(false);
    expect(fakeClockAvailable({ kind: "shim" })).toBe(true);
  });

  it("moves the node's clock as asked: a step, then a fast clock without a step, then real time", () => {
    let now = 1_000_000;
    const file = path.join(tmpDir(), "clock");
    const clock = new FakeClock(file, () => now);
    clock.processStarted();
    const start = now;
    const faked = () => fakedAt(fs.readFileSync(file, "utf8"), start, now);
    expect(fs.readFileSync(file, "utf8")).toBe("+0.000000 x1\n");

    now += 5_000;
    expect(clock.jump(15)).toEqual({ offsetS: 15, rate: 1 });
    expect(faked() - now).toBe(15_000); // a 10 s lock taken just before is already expired

    now += 5_000;
    const before = faked();
    clock.setRate(2);
    expect(faked()).toBe(before); // no step when the rate changes
    now += 4_000;
    expect(faked() - now).toBe(19_000); // 4 s later it is 4 s further ahead
    expect(clock.reading()).toEqual({ offsetS: 19, rate: 2 });

    clock.jump(-30);
    expect(faked() - now).toBe(-11_000); // behind: keys live longer than their TTL

    clock.reset();
    expect(faked()).toBe(now);
  });

  it("changes the rate without a step at the moment the node reads the file: the next whole second", () => {
    let now = 7_000;
    const file = path.join(tmpDir(), "clock");
    const clock = new FakeClock(file, () => now);
    clock.processStarted();
    const start = now;
    now = 12_400; // mid-second: the node reads the new line at 13_000
    clock.setRate(2);
    expect(clock.reading()).toEqual({ offsetS: 0, rate: 1 }); // what the node still reads
    expect(clock.target()).toEqual({ offsetS: 0, rate: 2 });
    const atRead = 13_000;
    expect(fakedAt(fs.readFileSync(file, "utf8"), start, atRead)).toBe(atRead); // continuous there
    now = 15_000;
    expect(clock.reading()).toEqual({ offsetS: 2, rate: 2 });
    expect(fakedAt(fs.readFileSync(file, "utf8"), start, now) - now).toBe(2_000);
  });

  it("keeps its reading through a restart of the node", () => {
    let now = 0;
    const file = path.join(tmpDir(), "clock");
    const clock = new FakeClock(file, () => now);
    clock.processStarted();
    clock.setRate(3);
    now += 2_000;
    expect(clock.reading().offsetS).toBe(4);
    clock.processStarted(); // a new process: libfaketime starts counting again from now
    const restartedAt = now;
    expect(fakedAt(fs.readFileSync(file, "utf8"), restartedAt, now) - now).toBe(4_000);
    now += 1_000;
    expect(fakedAt(fs.readFileSync(file, "utf8"), restartedAt, now) - now).toBe(6_000);
  });

  it("removes what libfaketime left in /dev/shm for a pid, and nothing else", () => {
    const shm = tmpDir();
    for (const name of ["faketime_shm_41", "sem.faketime_sem_41", "faketime_shm_42"]) fs.writeFileSync(path.join(shm, name), "");
    removeShm(41, shm);
    expect(fs.readdirSync(shm)).toEqual(["faketime_shm_42"]);
  });
});

describe("POST /redis/<n>/clock", () => {
  it("takes exactly one of a jump, a rate, a reset", () => {
    expect(parseClockChange({ jumpS: 15 })).toEqual({ jumpS: 15 });
    expect(parseClockChange({ jumpS: -2.5 })).toEqual({ jumpS: -2.5 });
    expect(parseClockChange({ rate: 2 })).toEqual({ rate: 2 });
    expect(parseClockChange({ reset: true })).toEqual({ reset: true });
  });

  it.each([[undefined], [{}], [{ jumpS: 15, rate: 2 }], [{ jumpS: 0 }], [{ jumpS: "15" }], [{ jumpS: 1e9 }], [{ rate: 0 }], [{ rate: 50 }], [{ reset: false }], [{ speed: 2 }]])(
    "refuses %j with invalid_clock",
    (body) => {
      let err: unknown;
      try {
        parseClockChange(body);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(HttpError);
      expect([(err as HttpError).status, (err as HttpError).code]).toEqual([422, "invalid_clock"]);
    },
  );
});
