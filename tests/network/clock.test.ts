/**
 * Real clock jumps on a real redis-server, without the stack: a standalone server under libfaketime
 * exactly as the stack starts its Redis nodes (../../scripts/stack/fake-clock.ts), its clock moved
 * by writing its file. What a user of the lab would see: TIME moves; a lock with 10 s left is gone
 * right after a +15 s jump; a backward jump makes a lock outlive its TTL; a clock running twice as
 * fast expires a lock in half the time; a reset brings real time back.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FakeClock, fakeClockAvailable, fakeClockEnv, removeShm } from "../../scripts/stack/fake-clock";
import { redisClockSkewS } from "../../scripts/stack/services/redis";
import { waitFor } from "../support/wait";
import { type TestRedis, cleanup, freePorts, startRedis } from "./support/machine";

const unfit = !fakeClockAvailable() ? "libfaketime is not installed (Debian's faketime)" : null;

describe.skipIf(unfit !== null)(`a Redis node's real clock${unfit ? ` (skipped: ${unfit})` : ""}`, () => {
  let redis: TestRedis;
  let clock: FakeClock;
  let dir: string;
  const skew = async () => (await redisClockSkewS("127.0.0.1", redis.port)) ?? Number.NaN;
  /** Resolves with how long the server took to read its new clock (the file is read once a real second). */
  async function clockReads(offsetS: number): Promise<number> {
    const t0 = Date.now();
    await waitFor(skew, { what: `the server's clock to read ${offsetS} s ahead`, timeoutMs: 3000, until: (s) => Math.abs(s - offsetS) < 0.1 });
    return Date.now() - t0;
  }

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "locklab-clock-"));
    clock = new FakeClock(path.join(dir, "clock"));
    clock.processStarted();
    const [port] = await freePorts(1);
    // Starts at all: without the shim (0.9.10) or the symbols to ignore (later), libfaketime deadlocks inside jemalloc here.
    redis = await startRedis(port!, fakeClockEnv(clock.file) as Record<string, string>);
  }, 30_000);

  // A test that fails before its own reset leaves the clock jumped or fast: the next test starts from real time.
  afterEach(async () => {
    if (redis.child.exitCode !== null || redis.child.signalCode !== null) return;
    clock.reset();
    await clockReads(0);
  });

  afterAll(async () => {
    await cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("reads real time at start, and TIME moves with a jump", async () => {
    // One probe's round trip can be slow on a loaded machine; a clock that is really off stays off.
    await waitFor(skew, { what: "the server's clock to read real time", timeoutMs: 3000, until: (s) => Math.abs(s) < 0.05 });
    clock.jump(3600);
    // Read again at the next real second (at most 1 s away), plus the probes' own time.
    const tookMs = await clockReads(3600);
    expect(tookMs).toBeLessThan(2500);
    clock.reset();
    await clockReads(0);
  });

  it("a +15 s jump: a lock with 10 s left is gone at once", async () => {
    expect(await redis.command(["SET", "lock", "holder-1", "PX", "10000"])).toBe("OK");
    clock.jump(15);
    const tookMs = await clockReads(15);
    expect(await redis.command(["GET", "lock"])).toBeNull();
    expect(await redis.command(["SET", "lock", "holder-2", "NX", "PX", "10000"])).toBe("OK"); // the next holder gets it
    console.info(`+15 s jump seen by TIME after ${tookMs} ms; the 10 s lock was gone`);
    clock.reset();
    await clockReads(0);
    await redis.command(["DEL", "lock"]);
  });

  it("a −30 s jump: a lock outlives its TTL by 30 s", async () => {
    expect(await redis.command(["SET", "lock", "holder-1", "PX", "10000"])).toBe("OK");
    clock.jump(-30);
    await clockReads(-30);
    const pttl = Number(await redis.command(["PTTL", "lock"]));
    expect(pttl).toBeGreaterThan(38_000);
    expect(pttl).toBeLessThanOrEqual(40_000);
    console.info(`−30 s jump: a 10 s lock now has ${pttl} ms left`);
    clock.reset();
    await clockReads(0);
    await redis.command(["DEL", "lock"]);
  });

  it("a clock twice as fast expires a 6 s lock in about 3 s, without a step when the rate changes", async () => {
    clock.setRate(2);
    // The new rate is read at the next real second; the offset written with it keeps the clock
    // continuous, so the clock never reads more than the rate's own gain ahead.
    // The first probe to see it fast reads only what the clock gained since the probe before it (a
    // step would read the whole offset since the process started, many seconds).
    const firstFast = await waitFor(skew, { what: "the clock to start running fast", timeoutMs: 3000, until: (s) => s > 0.05 });
    expect(firstFast).toBeLessThan(0.5);
    const setAt = Date.now();
    // 6 s of the fast clock is 3 s of real time; at the real rate it would live 6 s.
    expect(await redis.command(["SET", "lock", "holder-1", "PX", "6000"])).toBe("OK");
    await waitFor(() => redis.command(["EXISTS", "lock"]), { what: "the lock to expire", timeoutMs: 8000, until: (n) => n === 0 });
    const lived = Date.now() - setAt;
    expect(lived).toBeGreaterThan(2400);
    expect(lived).toBeLessThan(4800);
    console.info(`rate ×2: a 6 s lock expired after ${lived} ms of real time`);
    clock.reset();
    await clockReads(0);
  });

  it("removes what libfaketime leaves in /dev/shm when its server is killed", async () => {
    const pid = redis.child.pid!;
    expect(fs.existsSync(`/dev/shm/faketime_shm_${pid}`)).toBe(true);
    redis.child.kill("SIGKILL");
    await waitFor(() => redis.child.exitCode !== null || redis.child.signalCode !== null, { what: "the server to die", timeoutMs: 3000 });
    expect(fs.existsSync(`/dev/shm/faketime_shm_${pid}`)).toBe(true); // no destructor ran
    removeShm(pid);
    expect(fs.existsSync(`/dev/shm/faketime_shm_${pid}`)).toBe(false);
    expect(fs.existsSync(`/dev/shm/sem.faketime_sem_${pid}`)).toBe(false);
  });
});
