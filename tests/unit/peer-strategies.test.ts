/**
 * The peer-… strategies (lib/locks/peer-lock.ts and lib/locks/strategies/peer-*.ts): each npm
 * library, loaded as the app loads it, over stand-in Redis clients that answer every lock "yes",
 * every lock "no", or nothing at all. What is checked is our side: the wait turned into the
 * library's tries, its errors turned into busy and unavailable, the lease and the loss it reports
 * turned into the holder's signal. Whether the libraries keep one holder at a time on the real
 * servers is the contract suite's (tests/integration/lock-contract.test.ts).
 */
import { createServer } from "node:net";
import type Redis from "ioredis";
import type { Pool } from "pg";
import { describe, expect, it } from "vitest";
import type { LockClients } from "@/lib/locks/clients";
import { STRATEGY_FACTORIES, STRATEGY_NAMES, type StrategyName } from "@/lib/locks/strategies";
import { connectionString } from "@/lib/locks/strategies/peer-advisory-lock";
import { LockBusyError, LockUnavailableError, type HeldLock, type LockOptions } from "@/lib/locks/types";
import { sleep } from "../support/wait";

type Mode = "granted" | "held" | "down";
type Kind = "acquire" | "release" | "refresh";

/**
 * A Redis node as far as the libraries use one: SET NX, their Lua scripts (told apart by their
 * text: EVALSHA of a script never loaded answers NOSCRIPT, so they send EVAL), SCRIPT LOAD, PING,
 * defineCommand, callbacks (redlock 4). `granted`: every lock, release and refresh succeeds;
 * `held`: each finds another holder; `down`: every command fails as a dropped connection does.
 */
class StandInNode {
  mode: Mode = "granted";
  readonly status = "ready";
  readonly options = {};
  readonly asked: Record<Kind, number> = { acquire: 0, release: 0, refresh: 0 };
  private readonly loaded = new Map<string, string>();
  private nextSha = 0;

  private answer<T>(kind: Kind | undefined, yes: T, no: T): Promise<T> {
    if (kind) this.asked[kind]++;
    if (this.mode === "down") return Promise.reject(new Error("Connection is closed."));
    return Promise.resolve(this.mode === "granted" ? yes : no);
  }

  private run(script: string): Promise<number> {
    const kind: Kind = /pexpire|~=/i.test(script) ? "refresh" : /del/i.test(script) && !/exists/i.test(script) ? "release" : "acquire";
    return this.answer(kind, 1, 0);
  }

  private settle<T>(args: unknown[], result: Promise<T>): Promise<T> {
    const callback = args.at(-1);
    // As ioredis does: the callback is told, its return value ignored, and the promise returned too.
    if (typeof callback === "function") {
      result.then((value) => {
        callback(null, value);
      }, (error: unknown) => {
        callback(error);
      });
    }
    return result;
  }

  ping() {
    return this.answer(undefined, "PONG", "PONG");
  }
  set() {
    return this.answer("acquire", "OK", null);
  }
  script(_load: string, body: string) {
    const sha = `sha-${++this.nextSha}`;
    this.loaded.set(sha, body);
    return this.answer(undefined, sha, sha);
  }
  evalsha(sha: string, ...args: unknown[]) {
    const body = this.loaded.get(sha);
    if (body !== undefined) return this.settle(args, this.run(body));
    if (this.mode === "down") return this.settle(args, this.answer(undefined, 0, 0));
    return this.settle(args, Promise.reject(new Error("NOSCRIPT No matching script. Please use EVAL.")));
  }
  eval(first: unknown, ...args: unknown[]) {
    const body = Array.isArray(first) ? String(first[0]) : String(first);
    return this.settle(args, this.run(body));
  }
  defineCommand(name: string, { lua }: { lua: string }) {
    Object.assign(this, { [name]: () => this.run(lua) });
  }
}

function standInClients(count = 5) {
  const nodes = Array.from({ length: count }, () => new StandInNode());
  const refuse = (what: string) => (): never => {
    throw new Error(`${what}: not used by the peers`);
  };
  const pool = { options: { host: "127.0.0.1", port: 1, user: "locklab", password: "p@ss word", database: "locklab" } };
  const clients = {
    redis: () => nodes[0] as unknown as Redis,
    redisNodes: () => nodes as unknown as Redis[],
    watchConnection: refuse("watchConnection"),
    lockPool: () => pool as unknown as Pool,
    bouncerPool: refuse("bouncerPool"),
    services: refuse("services"),
    releases: {} as LockClients["releases"],
    sentinelReleases: {} as LockClients["sentinelReleases"],
    clusterReleases: {} as LockClients["clusterReleases"],
  } satisfies LockClients;
  const setMode = (mode: Mode, which: readonly StandInNode[] = nodes) => which.forEach((node) => (node.mode = mode));
  return { nodes, clients, setMode, pool };
}

const PEERS = STRATEGY_NAMES.filter((name) => name.startsWith("peer-"));
const REDIS_PEERS = PEERS.filter((name) => name !== "peer-advisory-lock");
/** The libraries that count tries (retryCount = ceil(wait / 200 ms)) rather than keep a deadline. */
const COUNTING: readonly StrategyName[] = ["peer-redlock5", "peer-redlock4", "peer-sesamecare-redlock", "peer-redlock-universal"];
const SINGLE_NODE: readonly StrategyName[] = ["peer-semaphore-mutex"];
const options = (overrides: Partial<LockOptions> = {}): LockOptions => ({ ttlMs: 5000, waitTimeoutMs: 0, ...overrides });

describe("the peer strategies", () => {
  it("are lab variants, registered last, none of them safe", () => {
    expect(PEERS).toEqual([
      "peer-redlock5", "peer-redlock4", "peer-sesamecare-redlock", "peer-semaphore-mutex",
      "peer-semaphore-redlock-mutex", "peer-redlock-universal", "peer-advisory-lock",
    ]);
    expect(STRATEGY_NAMES.slice(-PEERS.length)).toEqual(PEERS);
    const { clients } = standInClients();
    for (const name of PEERS) {
      const strategy = STRATEGY_FACTORIES[name](clients);
      expect({ name: strategy.name, lab: strategy.lab, safe: strategy.safe, localLine: strategy.localLine }).toEqual({ name, lab: true, safe: false, localLine: undefined });
    }
  });

  it("open no connection when built", () => {
    const untouchable = new Proxy({}, { get: (_target, property) => () => {
      throw new Error(`asked for ${String(property)} while building`);
    } }) as LockClients;
    for (const name of PEERS) expect(() => STRATEGY_FACTORIES[name](untouchable)).not.toThrow();
  });
});

describe.each(REDIS_PEERS)("%s over stand-in Redis nodes", (name) => {
  it("runs the critical section under the library's lock, with no time left to check, and releases it", async () => {
    const { nodes, clients } = standInClients();
    let seen: HeldLock | undefined;
    await expect(STRATEGY_FACTORIES[name](clients).withLock("r", options(), async (held) => {
      seen = held;
      return "sold";
    })).resolves.toBe("sold");
    expect(seen?.timeLeftMs).toBeUndefined();
    expect(seen?.fencingToken).toBeUndefined();
    expect(seen?.signal.aborted).toBe(false);
    // The Redlock-style libraries say when their lock expires; redis-semaphore renews its own.
    if (COUNTING.includes(name)) expect(seen?.leaseLeftMs?.()).toBeGreaterThan(4000);
    else expect(seen?.leaseLeftMs).toBeUndefined();
    expect(nodes[0]!.asked.release).toBeGreaterThan(0);
  });

  it("a wait of 0 is one try: busy at once when the lock is held", async () => {
    const { nodes, clients, setMode } = standInClients();
    setMode("held");
    const startedAt = Date.now();
    await expect(STRATEGY_FACTORIES[name](clients).withLock("r", options(), async () => {})).rejects.toBeInstanceOf(LockBusyError);
    expect(Date.now() - startedAt).toBeLessThan(500);
    expect(nodes[0]!.asked.acquire).toBe(1);
  });

  if (COUNTING.includes(name)) {
    it("spends a wait as ceil(wait / 200 ms) retries on the library's own timer", async () => {
      const { nodes, clients, setMode } = standInClients();
      setMode("held");
      await expect(STRATEGY_FACTORIES[name](clients).withLock("r", options({ waitTimeoutMs: 400 }), async () => {})).rejects.toBeInstanceOf(LockBusyError);
      expect(nodes[0]!.asked.acquire).toBe(3);
    });

    it("the signal aborts when the library's validity ends", async () => {
      const { clients } = standInClients();
      const seen = await STRATEGY_FACTORIES[name](clients).withLock("r", options({ ttlMs: 60 }), async (held) => {
        await sleep(150);
        return { aborted: held.signal.aborted, left: held.leaseLeftMs?.() };
      });
      expect(seen.aborted).toBe(true);
      expect(seen.left).toBeLessThan(0);
    });
  } else {
    it("keeps its acquire timeout: busy once the wait is over", async () => {
      const { clients, setMode } = standInClients();
      setMode("held");
      const startedAt = Date.now();
      await expect(STRATEGY_FACTORIES[name](clients).withLock("r", options({ waitTimeoutMs: 200 }), async () => {})).rejects.toBeInstanceOf(LockBusyError);
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(190);
    });

    it("a lock its refresh finds gone aborts the signal and is reported lost at release", async () => {
      const { clients, setMode } = standInClients();
      let lost = 0;
      const aborted = await STRATEGY_FACTORIES[name](clients).withLock("r", options({ ttlMs: 50, onLockLost: () => lost++ }), async (held) => {
        setMode("held"); // the next refresh (every 0.8 × TTL) finds someone else's lock
        await sleep(120);
        return held.signal.aborted;
      });
      expect(aborted).toBe(true);
      expect(lost).toBe(1);
    });
  }

  it("is unavailable when the nodes it needs do not answer", async () => {
    const { nodes, clients, setMode } = standInClients();
    setMode("down", SINGLE_NODE.includes(name) ? nodes.slice(0, 1) : nodes.slice(2));
    await expect(STRATEGY_FACTORIES[name](clients).withLock("r", options(), async () => {})).rejects.toBeInstanceOf(LockUnavailableError);
  });

  if (!SINGLE_NODE.includes(name)) {
    it("is still busy, not unavailable, when a minority of nodes is down and the lock is held", async () => {
      const { nodes, clients, setMode } = standInClients();
      setMode("held");
      setMode("down", nodes.slice(3));
      await expect(STRATEGY_FACTORIES[name](clients).withLock("r", options(), async () => {})).rejects.toBeInstanceOf(LockBusyError);
    });
  }
});

describe("peer-advisory-lock", () => {
  it("reaches the lock pool's server, with the wait as the sessions' lock_timeout", () => {
    const { pool } = standInClients();
    expect(connectionString(pool as unknown as Pool, 1500)).toBe("postgresql://locklab:p%40ss%20word@127.0.0.1:1/locklab?options=-c%20lock_timeout%3D1500");
    expect(connectionString(pool as unknown as Pool, 0)).toBe("postgresql://locklab:p%40ss%20word@127.0.0.1:1/locklab");
    expect(connectionString({ options: { connectionString: "postgres://u@h/db?sslmode=disable" } } as unknown as Pool, 20)).toBe("postgres://u@h/db?sslmode=disable&options=-c%20lock_timeout%3D20");
  });

  it("is unavailable when Postgres refuses the connection", async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, "127.0.0.1", () => {
        const { port: free } = server.address() as { port: number };
        server.close(() => resolve(free));
      });
    });
    const { clients, pool } = standInClients();
    pool.options.port = port;
    await expect(STRATEGY_FACTORIES["peer-advisory-lock"](clients).withLock("r", options({ waitTimeoutMs: 1000 }), async () => {})).rejects.toBeInstanceOf(LockUnavailableError);
  });
});
