/**
 * The local line (lib/locks/local-line.ts) and the one-buyer-one-contender hold
 * (lib/locks/shared-lock.ts), over a lock that lives in this process and counts what it is asked:
 * how many times the shared server would be asked to acquire and release, and in what order the
 * buyers got in. The real servers' side of every strategy is the contract suite's
 * (tests/integration/lock-contract.test.ts).
 */
import { describe, expect, it } from "vitest";
import { now } from "@/lib/locks/lease";
import { lineLetGo, withLocalLine } from "@/lib/locks/local-line";
import { holdSharedLock, type SharedLock } from "@/lib/locks/shared-lock";
import { LockBusyError, type LockOptions } from "@/lib/locks/types";
import { sleep, waitFor } from "../support/wait";

/**
 * A lock held in this process: one holder at a time, waiters poll every millisecond. Its poll is
 * the stand-in server's own behaviour (busy at the caller's deadline, as a real lock answers), not
 * the test waiting for something, so it stays a plain loop.
 */
function countingLock(overrides: Partial<SharedLock> = {}, ttlMs = 5000) {
  const server = { holder: 0, acquires: 0, releases: 0, next: 1 };
  const make = (): SharedLock => {
    const me = server.next++;
    return {
      kind: "counting",
      async acquire(deadline) {
        while (server.holder !== 0) {
          if (Date.now() > deadline) throw new LockBusyError("r", 0);
          await sleep(1);
        }
        server.holder = me;
        server.acquires++;
        return now() + ttlMs;
      },
      async release() {
        server.releases++;
        if (server.holder !== me) return false;
        server.holder = 0;
        return true;
      },
      ...overrides,
    };
  };
  return { server, make };
}

/**
 * `base`, noting in `events` when it is asked to acquire, when its release is sent and when that
 * release is answered: the server lets go as the release arrives (in order on its connection), and
 * the answer takes `answerMs` to come back.
 */
function recording(base: SharedLock, name: string, events: string[], answerMs: number): SharedLock {
  return {
    ...base,
    acquire(deadline) {
      events.push(`${name} acquires`);
      return base.acquire(deadline);
    },
    async release() {
      events.push(`${name} release sent`);
      const released = await base.release();
      await sleep(answerMs);
      events.push(`${name} release answered`);
      return released;
    },
  };
}

const options = (overrides: Partial<LockOptions> = {}): LockOptions => ({ ttlMs: 5000, waitTimeoutMs: 5000, ...overrides });
let nextResource = 0;
const fresh = () => `line-${++nextResource}`;

describe("the local line (opt-in wrapper)", () => {
  it("lets one instance's buyers in one at a time and in arrival order", async () => {
    const { make } = countingLock();
    const resource = fresh();
    const order: number[] = [];
    let inside = 0;
    let peak = 0;
    await Promise.all(Array.from({ length: 20 }, (_, index) =>
      withLocalLine(resource, options(), make(), async () => {
        inside++;
        peak = Math.max(peak, inside);
        order.push(index);
        await sleep(1);
        inside--;
      })));
    expect(peak).toBe(1);
    expect(order).toEqual(Array.from({ length: 20 }, (_, index) => index));
  });

  it("hands the lock on along the line: far fewer acquisitions than buyers, and it ends released", async () => {
    const { server, make } = countingLock();
    const resource = fresh();
    await Promise.all(Array.from({ length: 20 }, () => withLocalLine(resource, options(), make(), async () => {})));
    expect(server.acquires).toBeLessThan(20);
    expect(server.acquires).toBe(server.releases);
    expect(server.holder).toBe(0);
  });

  it("a lock that must really unlock every time (handOn: false) is acquired and released per buyer", async () => {
    const { server, make } = countingLock({ handOn: false });
    const resource = fresh();
    await Promise.all(Array.from({ length: 10 }, () => withLocalLine(resource, options(), make(), async () => {})));
    expect(server.acquires).toBe(10);
    expect(server.releases).toBe(10);
  });

  it("hands on for at most a tenth of the TTL: a long line re-acquires", async () => {
    const { server, make } = countingLock();
    const resource = fresh();
    // TTL 50 ms → each holder of the line may pass it on for 5 ms; 20 holders × 2 ms of work.
    await Promise.all(Array.from({ length: 20 }, () =>
      withLocalLine(resource, options({ ttlMs: 50 }), make(), () => sleep(2))));
    expect(server.acquires).toBeGreaterThan(1);
    expect(server.holder).toBe(0);
  });

  it("never hands a lock to a buyer asking for another kind (a strategy switch)", async () => {
    const { server, make } = countingLock();
    const resource = fresh();
    const kinds = ["a", "b", "a", "b"];
    await Promise.all(kinds.map((kind) => withLocalLine(resource, options(), { ...make(), kind }, () => sleep(1))));
    expect(server.acquires).toBe(4);
  });

  it("releases when the critical section throws, and the next buyer gets in", async () => {
    const { server, make } = countingLock();
    const resource = fresh();
    await expect(withLocalLine(resource, options(), make(), async () => {
      throw new Error("the work failed");
    })).rejects.toThrow("the work failed");
    expect(server.holder).toBe(0);
    await withLocalLine(resource, options({ waitTimeoutMs: 50 }), make(), async () => {});
  });

  it("keeps the lock until a holder that handed it on at its write has left, even when the rest of the line ends at once", async () => {
    const { server, make } = countingLock();
    const resource = fresh();
    let firstLeft = false;
    let releasedBeforeFirstLeft = false;
    const lock = () => {
      const base = make();
      return { ...base, release: () => ((releasedBeforeFirstLeft ||= !firstLeft), base.release()) };
    };
    await Promise.all([
      // The first holder hands the lease on when its write is sent, then waits 30 ms for the answer.
      withLocalLine(resource, options(), lock(), async (held) => {
        held.writeSent?.();
        await sleep(30);
        firstLeft = true;
      }),
      // The rest of the line ends without a command of their own (a sold-out answered from memory).
      ...Array.from({ length: 3 }, () => withLocalLine(resource, options(), lock(), async () => {})),
    ]);
    expect(server.acquires).toBe(1); // it was handed on, not released and taken again
    expect(releasedBeforeFirstLeft).toBe(false);
    expect(server.holder).toBe(0);
  });

  it("the last of the line lets the lock go right behind a write sent on the lock's own release connection, not after its answer", async () => {
    const connection = {};
    const { server, make } = countingLock({ releasesOn: connection });
    const resource = fresh();
    const events: string[] = [];
    await withLocalLine(resource, options(), make(), async (held) => {
      held.writeSent?.(connection);
      events.push(server.holder === 0 ? "released at the write" : "still held at the write");
      await sleep(20); // the write's answer on its way back
      events.push("write answered");
    });
    expect(events).toEqual(["released at the write", "write answered"]);
    expect(server.releases).toBe(1);
    expect(server.holder).toBe(0);
  });

  it("a write sent on another connection than the lock's release keeps the lock until the write is answered", async () => {
    const { server, make } = countingLock({ releasesOn: {} });
    const resource = fresh();
    const events: string[] = [];
    await withLocalLine(resource, options(), make(), async (held) => {
      held.writeSent?.({});
      await sleep(20);
      events.push(server.holder === 0 ? "released before the answer" : "held until the answer");
    });
    expect(events).toEqual(["held until the answer"]);
    expect(server.holder).toBe(0);
  });

  it("a holder that handed the lock on with its write on the release's connection does not hold the line's release back", async () => {
    const connection = {};
    const { server, make } = countingLock({ releasesOn: connection });
    const resource = fresh();
    let releasedBeforeFirstLeft = false;
    let firstLeft = false;
    await Promise.all([
      withLocalLine(resource, options(), make(), async (held) => {
        held.writeSent?.(connection);
        await sleep(30);
        releasedBeforeFirstLeft = server.holder === 0;
        firstLeft = true;
      }),
      // The rest of the line ends without a command of its own: the release is behind the first write anyway.
      ...Array.from({ length: 3 }, () => withLocalLine(resource, options(), make(), async () => {})),
    ]);
    expect(firstLeft).toBe(true);
    expect(releasedBeforeFirstLeft).toBe(true);
    expect(server.acquires).toBe(1);
    expect(server.holder).toBe(0);
  });

  it("when the line lets its lock go, the next buyer contends once the release is sent, not once it is answered", async () => {
    const { server, make } = countingLock();
    const resource = fresh();
    const events: string[] = [];
    const lock = (name: string) => recording(make(), name, events, 30);
    // TTL 50 ms: the first holder may pass the lock on for 5 ms, and its 10 ms of work outlast that share.
    await Promise.all([
      withLocalLine(resource, options({ ttlMs: 50 }), lock("first"), () => sleep(10)),
      withLocalLine(resource, options({ ttlMs: 50 }), lock("second"), async () => {}),
    ]);
    expect(events.slice(0, 3)).toEqual(["first acquires", "first release sent", "second acquires"]);
    expect(events.indexOf("second acquires")).toBeLessThan(events.indexOf("first release answered"));
    expect(server.acquires).toBe(2);
    expect(server.holder).toBe(0);
  });

  it("a lock that must really unlock every time (handOn: false) lets the next buyer in only once its release is answered", async () => {
    const { make } = countingLock({ handOn: false });
    const resource = fresh();
    const events: string[] = [];
    const lock = (name: string) => recording(make(), name, events, 10);
    await Promise.all([
      withLocalLine(resource, options(), lock("first"), () => sleep(5)),
      withLocalLine(resource, options(), lock("second"), async () => {}),
    ]);
    expect(events).toEqual(["first acquires", "first release sent", "first release answered", "second acquires", "second release sent", "second release answered"]);
  });

  it("aborts a handed-on holder's signal when the lease runs out", async () => {
    const { make } = countingLock({}, 60);
    const resource = fresh();
    const aborted = await Promise.all(Array.from({ length: 3 }, () =>
      withLocalLine(resource, options({ ttlMs: 60 }), make(), async (held) => {
        await sleep(80); // work past the 60 ms lease
        return held.signal.aborted;
      })));
    expect(aborted).toEqual([true, true, true]);
  });
});

describe("waiting for the line to let go (deferred order inserts)", () => {
  it("answers at once when this process's line does not hold the lock", async () => {
    let settled = false;
    const waiting = lineLetGo(fresh(), 10_000).then(() => (settled = true));
    await Promise.resolve();
    await Promise.resolve();
    expect(settled).toBe(true);
    await waiting;
  });

  it("while the line passes the lock along, a buyer who is done waits until the line lets go", async () => {
    const { server, make } = countingLock();
    const resource = fresh();
    let finished = 0;
    const finishedWhenLetGo: number[] = [];
    await Promise.all(Array.from({ length: 5 }, () =>
      withLocalLine(resource, options(), make(), async () => {
        await Promise.resolve();
        finished++;
      }).then(async () => {
        // Out of the critical section while the rest of the line still holds the lock.
        await lineLetGo(resource, 10_000);
        finishedWhenLetGo.push(finished);
      })));
    // One acquisition served all five (handed on); nobody went on before the last one was done.
    expect(server.acquires).toBe(1);
    expect(finishedWhenLetGo).toEqual([5, 5, 5, 5, 5]);
    expect(server.holder).toBe(0);
  });

  it("waits no longer than asked when the holder's work runs long", async () => {
    const { make } = countingLock();
    const resource = fresh();
    let inside = false;
    const holding = withLocalLine(resource, options(), make(), async () => {
      inside = true;
      await sleep(400); // the holder's long work
    });
    await waitFor(() => inside, { timeoutMs: 1000, what: "the holder to be inside the line's lock" });
    const startedAt = Date.now();
    await lineLetGo(resource, 30);
    expect(Date.now() - startedAt).toBeLessThan(300);
    await holding;
  });
});

describe("one buyer, one contender (holdSharedLock, no line)", () => {
  it("acquires and releases once per buyer", async () => {
    const { server, make } = countingLock();
    let inside = 0;
    let peak = 0;
    await Promise.all(Array.from({ length: 10 }, () =>
      holdSharedLock(options(), make(), async () => {
        inside++;
        peak = Math.max(peak, inside);
        await sleep(1);
        inside--;
      })));
    expect(peak).toBe(1);
    expect(server.acquires).toBe(10);
    expect(server.releases).toBe(10);
  });

  it("reports a release that finds the lock no longer ours", async () => {
    const { server, make } = countingLock();
    let lost = 0;
    await holdSharedLock(options({ onLockLost: () => lost++ }), make(), async () => {
      server.holder = 999; // someone else took it while we worked
    });
    expect(lost).toBe(1);
  });

  it("offers no time-left check to a lock that skips it on purpose (checked: false)", async () => {
    const { make } = countingLock({ checked: false });
    const left = await holdSharedLock(options(), make(), async (held) => held.timeLeftMs);
    expect(left).toBeUndefined();
  });
});
