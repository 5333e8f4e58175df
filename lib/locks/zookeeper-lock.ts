import { randomUUID } from "node:crypto";
import path from "node:path";
import zookeeper from "node-zookeeper-client";
import type { LockClients } from "./clients";
import { leaseEnd, now } from "./lease";
import { SERVICE_CALL_MS, lockDelayOwed, serviceCall } from "./service-call";
import type { ServiceLockVariant } from "./service-strategy";
import type { SharedLock } from "./shared-lock";
import { LockBusyError, LockUnavailableError, type LockOptions, type ReadinessCheck } from "./types";

/**
 * Curator's lock recipe on ZooKeeper: each contender creates an ephemeral sequential znode under
 * the lock's path; the lowest sequence holds the lock; every other contender watches only the
 * znode just before its own (FIFO, no herd). The znode lives as long as its client's session,
 * which the client keeps alive with heartbeats; the session timeout is the lease. Its sequence
 * number rises with every contender, so it is the fencing token the stock store checks.
 *
 * Names are protected, as Curator's are: `_c_<guid>-lock-<sequence>`. A create or remove whose
 * answer never came (a timeout while the client was cut off: the client queues the request and
 * sends it after it reconnects; a CONNECTION_LOSS after the server committed it) may leave a znode
 * in a session that lives on, and that znode would block every contender, on every instance, for
 * as long as the instance runs. After any such uncertain call the contender looks for its own
 * GUID and deletes what it finds (sweepOurs).
 */
const ROOT = "/locklab/locks";

/** The lock's path: the directory its contenders' znodes are created in, one per resource. */
export const zookeeperLockPath = (resource: string) => `${ROOT}/${encodeURIComponent(resource)}`;

/** ZooKeeper grants sessions of 2 to 20 ticks (the stack's tickTime is 200 ms). */
export const ZOOKEEPER_SESSION_MS = { min: 400, max: 4000 } as const;

export function zookeeperSessionMs(ttlMs: number): number {
  return Math.min(ZOOKEEPER_SESSION_MS.max, Math.max(ZOOKEEPER_SESSION_MS.min, ttlMs));
}

type ZkError = Error | zookeeper.Exception;
type Callback<T> = (error: ZkError | null | undefined, result: T) => void;

const messageOf = (error: ZkError) => (error instanceof Error ? error.message : error.toString());

/**
 * Rejects once `client`'s session has expired. node-zookeeper-client (1.1.3) fails the requests it
 * had sent when it learns its session expired, but never answers those it queued while it was
 * reconnecting: after an instance's pause, the first call of the next buyer in line waited out
 * SERVICE_CALL_MS, and that timeout shut the service to every buyer of the instance for a second
 * more (./service-call.ts), though the ensemble was fine and a new session was one connect away.
 * Every call here races this, so a call on an expired session fails at once.
 */
function sessionEnded(client: zookeeper.Client): Promise<never> {
  let ended = sessionEnds.get(client);
  if (!ended) {
    ended = new Promise<never>((_, reject) => {
      // Carries the code, as the client's own exceptions do (isCode below).
      const expired = () => reject(Object.assign(new Error("the session expired"), { cause: { getCode: () => zookeeper.Exception.SESSION_EXPIRED } }));
      if (client.getState() === zookeeper.State.EXPIRED) expired();
      else client.once("expired", expired);
    });
    ended.catch(() => {});
    sessionEnds.set(client, ended);
  }
  return ended;
}
const sessionEnds = new WeakMap<zookeeper.Client, Promise<never>>();

/** One ZooKeeper call's answer, however long the client takes to send it, or its session's end. */
function answerOf<T>(client: zookeeper.Client, call: (callback: Callback<T>) => void): Promise<T> {
  const answer = new Promise<T>((resolve, reject) =>
    call((error, result) => (error ? reject(error instanceof Error ? error : Object.assign(new Error(messageOf(error)), { cause: error })) : resolve(result))));
  return Promise.race([answer, sessionEnded(client)]);
}

/**
 * Resolves once the member `client`'s session is on has applied every write the leader ordered
 * before now, so the session's next read sees a znode another session has just made. ZooKeeper
 * orders one session's requests, not reads across sessions: a read alone is answered from what
 * that member has applied so far. A write (a transaction that only checks `dir`) goes through the
 * leader, and the session's read after it waits for the member to catch up.
 */
export function caughtUp(client: zookeeper.Client, dir: string): Promise<void> {
  return answerOf<void>(client, (cb) => client.transaction().check(dir).commit((error) => cb(error, undefined)));
}

/** One ZooKeeper call as a promise, bounded (a client without a quorum queues requests). */
function zk<T>(client: zookeeper.Client, what: string, timeoutMs: number, call: (callback: Callback<T>) => void): Promise<T> {
  return serviceCall(`zookeeper ${what}`, timeoutMs, () => answerOf(client, call));
}

/** A contender's znode: `_c_<guid>-lock-<sequence>` (or the older `lock-<sequence>`). */
const LOCK_NODE = /(?:^|-)lock-(\d+)$/;
const sequenceOf = (name: string) => Number(LOCK_NODE.exec(name)?.[1] ?? NaN);

/** The contenders under the lock's path, lowest sequence first. */
const inLine = (children: readonly string[]) =>
  children.filter((name) => LOCK_NODE.test(name)).sort((a, b) => sequenceOf(a) - sequenceOf(b));

/** How long a sweep keeps trying; past it the session has long expired, and its znodes with it. */
const SWEEP_FOR_MS = 60_000;
const SWEEP_AGAIN_MS = 250;

/**
 * Deletes every znode under `dir` whose name carries `guid`, on the client that may have created
 * it. ZooKeeper answers one session's requests in order and the client sends what it queued in
 * order, so a listing asked after an uncertain create on the same connection sees that create's
 * outcome. Not so after a reconnect: a create sent to a member that was then killed may already be
 * on its way through the leader, and the member the client reconnected to answers a read from
 * what it has applied so far — the listing can miss a znode that appears a moment later, in a
 * session that lives on, ahead of every contender of the other instance until this one contends
 * again (the one path we found to a CI run where app-1 was told busy for 6 s after every member
 * was back, with no buyer on app-2). So the sweep first writes (a transaction that
 * only checks `dir`, which goes through the leader): this session's read after it waits until
 * the member has applied everything the leader ordered before, that create included. Retried
 * until answered; ends when the session is gone (its ephemeral znodes went with it).
 */
export async function sweepOurs(client: zookeeper.Client, dir: string, guid: string): Promise<void> {
  const deadline = Date.now() + SWEEP_FOR_MS;
  while (Date.now() < deadline) {
    try {
      await caughtUp(client, dir);
      const ours = (await answerOf<string[]>(client, (cb) => client.getChildren(dir, cb))).filter((name) => name.includes(guid));
      for (const name of ours) {
        await answerOf<void>(client, removal(client, `${dir}/${name}`)).catch(unlessGone);
      }
      return;
    } catch (error) {
      if (isCode(error, zookeeper.Exception.SESSION_EXPIRED) || isCode(error, zookeeper.Exception.NO_NODE)) return;
      if (client.getState() === zookeeper.State.EXPIRED) return;
      await new Promise((resolve) => setTimeout(resolve, SWEEP_AGAIN_MS));
    }
  }
}

/** Whether a znode's ephemeral owner is the session `sessionId` (a persistent znode's owner is 0). */
function sameSession(owner: Buffer, sessionId: Buffer): boolean {
  return owner.equals(sessionId) && owner.some((byte) => byte !== 0);
}

/** How long after its last contender of a session has ended a lock's path is checked for that session's orphans. */
export const IDLE_AUDIT_MS = [500, 3000] as const;

/** A lock's path as one session uses it: its contenders in flight, and the audits waiting for it to be idle. */
interface PathInSession {
  contenders: number;
  audits: NodeJS.Timeout[];
  /** Audits running now (their timer has fired). */
  running: number;
}

/** Per client (one session), per lock path. */
const pathsInSession = new WeakMap<zookeeper.Client, Map<string, PathInSession>>();

function pathInSession(client: zookeeper.Client, dir: string): PathInSession {
  let paths = pathsInSession.get(client);
  if (!paths) {
    const byDir = new Map<string, PathInSession>();
    paths = byDir;
    pathsInSession.set(client, paths);
    // Back from a disconnection: a create or remove queued while cut off has just been sent.
    client.on("connected", () => {
      for (const [at, state] of byDir) if (state.contenders === 0) scheduleAudits(client, at, state);
    });
  }
  let state = paths.get(dir);
  if (!state) {
    state = { contenders: 0, audits: [], running: 0 };
    paths.set(dir, state);
  }
  return state;
}

/** A contender of this session starts on `dir`: no audit of it runs until every one has ended. */
function contenderStarts(client: zookeeper.Client, dir: string): () => void {
  const state = pathInSession(client, dir);
  state.contenders += 1;
  for (const timer of state.audits.splice(0)) clearTimeout(timer);
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    state.contenders -= 1;
    if (state.contenders === 0) scheduleAudits(client, dir, state);
  };
}

function scheduleAudits(client: zookeeper.Client, dir: string, state: PathInSession): void {
  for (const timer of state.audits.splice(0)) clearTimeout(timer);
  for (const afterMs of IDLE_AUDIT_MS) {
    const timer = setTimeout(() => {
      state.audits = state.audits.filter((t) => t !== timer);
      state.running += 1;
      void auditIdle(client, dir, state)
        .catch(() => false)
        .then((listed) => {
          state.running -= 1;
          if (listed) forgetIfIdle(client, dir, state);
        });
    }, afterMs);
    timer.unref?.();
    state.audits.push(timer);
  }
}

/**
 * Drops the path's entry once its last audit has listed it with nothing in flight, so a process
 * that locks many paths (the lab's and the tests' names) keeps state only for the paths in use.
 * An audit that was skipped or failed (cut off, not connected) keeps the entry: the reconnection
 * audits it again, behind whatever create or remove was queued while cut off.
 */
function forgetIfIdle(client: zookeeper.Client, dir: string, state: PathInSession): void {
  if (state.contenders > 0 || state.audits.length > 0 || state.running > 0) return;
  const paths = pathsInSession.get(client);
  if (paths?.get(dir) === state) paths.delete(dir);
}

/** Audits `dir` in this session now, as the idle timers do; true if it listed the path. For tests. */
export function auditIdleNow(client: zookeeper.Client, dir: string): Promise<boolean> {
  return auditIdle(client, dir, pathInSession(client, dir));
}

/** Whether this session keeps state for the lock path `dir` (contenders, audits due). For tests. */
export const keepsStateFor = (client: zookeeper.Client, dir: string): boolean => pathsInSession.get(client)?.has(dir) ?? false;

/**
 * Removes this session's znodes under `dir` while none of its contenders is in flight. The proof
 * that each is an orphan: the listing is sent when this process has no contender on `dir` in the
 * session, and ZooKeeper answers one session's requests in the order they were sent, so the listing
 * holds no znode of a contender that starts after it; every znode of the session it does hold was
 * made by a contender that has already ended — released, given up or turned away — whose znode
 * nobody is waiting to use. Such an orphan, first in line, would make every contender of the other
 * instance wait until this instance's buyers contend again (their predecessor check removes it) or
 * its session ends, which an instance with no buyers never does: this catches what sweepOurs and
 * that check leave while the instance is idle. Writes first, as sweepOurs does, so the listing is
 * not read from a member behind the leader.
 */
async function auditIdle(client: zookeeper.Client, dir: string, state: PathInSession): Promise<boolean> {
  if (state.contenders > 0 || client.getState() !== zookeeper.State.SYNC_CONNECTED) return false;
  await caughtUp(client, dir);
  // Checked again as the listing is sent: a contender that started during the write makes it unsafe.
  if (state.contenders > 0) return false;
  const session = client.getSessionId();
  const listed = answerOf<string[]>(client, (cb) => client.getChildren(dir, cb));
  for (const name of inLine(await listed)) {
    const stat = await answerOf<zookeeper.Stat | undefined>(client, (cb) => client.exists(`${dir}/${name}`, cb));
    if (stat && sameSession(stat.ephemeralOwner, session)) {
      await answerOf<void>(client, removal(client, `${dir}/${name}`)).catch(unlessGone);
    }
  }
  return true;
}

/** The call that removes `path`, whatever its version. */
const removal = (client: zookeeper.Client, path: string) => (cb: Callback<void>) => client.remove(path, -1, (error) => cb(error, undefined));

/** Rethrows `error` unless it says the znode was already gone. */
function unlessGone(error: unknown): void {
  if (!isCode(error, zookeeper.Exception.NO_NODE)) throw error;
}

/** Whether `error`, or an error it was caused by, is ZooKeeper's exception `code`. */
export function isCode(error: unknown, code: number): boolean {
  for (let e = error as { getCode?: () => number; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (typeof e.getCode === "function" && e.getCode() === code) return true;
  }
  return false;
}


export function zookeeperLock(clients: LockClients, resource: string, options: LockOptions, variant: ServiceLockVariant = { fenced: true }): SharedLock {
  const sessionMs = zookeeperSessionMs(options.ttlMs);
  const lockDelayMs = options.lockDelayMs ?? 0;
  const dir = zookeeperLockPath(resource);
  let client: zookeeper.Client | undefined;
  let node: string | undefined;
  let sequence: number | undefined;
  let guidOf: string | undefined;
  /** Ends this contender's time in flight (contenderStarts). */
  let ended: (() => void) | undefined;

  /**
   * Waits until the znode before ours goes (or `maxMs`); answers "ours" at once when that znode
   * belongs to this client's own session. Only one buyer of this process contends for a resource at
   * a time (the local line), and the one before us has left its critical section, so a znode of our
   * session that is not ours is an orphan: a create or remove whose answer never came (sweepOurs
   * removes those it knows of; this catches one it missed). Left in place, it would block every
   * contender on every instance for as long as this session lives.
   */
  function waitForPredecessor(c: zookeeper.Client, predecessor: string, maxMs: number): Promise<"gone" | "waited" | "ours"> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => resolve("waited"), Math.max(1, maxMs));
      const done = (how: "gone" | "ours") => {
        clearTimeout(timer);
        resolve(how);
      };
      c.exists(`${dir}/${predecessor}`, () => done("gone"), (error, stat) => {
        if (error) {
          clearTimeout(timer);
          reject(new LockUnavailableError(`zookeeper exists: ${messageOf(error)}`, { cause: error }));
        } else if (!stat) done("gone");
        else if (sameSession(stat.ephemeralOwner, c.getSessionId())) done("ours");
      });
    });
  }

  /** Queues this contender's znode and waits for its turn, on the session `c`; resolves with the lease's end. */
  async function acquireOn(c: zookeeper.Client, deadline: number): Promise<number> {
    await zk<string>(c, "mkdirp", SERVICE_CALL_MS, (cb) => c.mkdirp(dir, cb));
    let heardAt = now();
    const guid = randomUUID().replaceAll("-", "");
    guidOf = guid;
    try {
      node = await zk<string>(c, "create", SERVICE_CALL_MS, (cb) => c.create(`${dir}/_c_${guid}-lock-`, Buffer.alloc(0), zookeeper.CreateMode.EPHEMERAL_SEQUENTIAL, cb));
    } catch (error) {
      // Created or not, we cannot tell: whatever carries our GUID goes.
      void sweepOurs(c, dir, guid);
      throw error;
    }
    const mine = path.posix.basename(node);
    sequence = sequenceOf(mine);
    try {
      for (;;) {
        heardAt = now();
        const children = inLine(await zk<string[]>(c, "getChildren", SERVICE_CALL_MS, (cb) => c.getChildren(dir, cb)));
        const at = children.indexOf(mine);
        if (at < 0) throw new LockUnavailableError(`zookeeper: our znode ${node} is gone (the session expired)`);
        if (at === 0) break;
        const left = deadline - Date.now();
        if (left <= 0) throw new LockBusyError(resource, options.waitTimeoutMs);
        const predecessor = children[at - 1]!;
        if ((await waitForPredecessor(c, predecessor, Math.min(left, 1000))) === "ours") {
          heardAt = now();
          await zk(c, "remove", SERVICE_CALL_MS, removal(c, `${dir}/${predecessor}`)).catch(unlessGone);
        }
      }
      if (lockDelayMs) {
        const [mark] = await zk<[Buffer | undefined]>(c, "getData", SERVICE_CALL_MS, (cb) => c.getData(dir, (e, data) => cb(e, [data])));
        const owed = lockDelayOwed(mark?.toString("utf8"), sequence, lockDelayMs);
        if (owed) await new Promise((resolve) => setTimeout(resolve, owed));
        heardAt = now();
        await zk(c, "setData", SERVICE_CALL_MS, (cb) => c.setData(dir, Buffer.from(`held:${sequence}`), cb));
      }
    } catch (error) {
      node = undefined;
      void sweepOurs(c, dir, guid);
      throw error;
    }
    // The server heard from this session no earlier than our last answered call: the session,
    // and the znode with it, lives at least a session timeout from then.
    return leaseEnd(heardAt, sessionMs);
  }

  return {
    kind: `zookeeper:${sessionMs}:${lockDelayMs}:${options.epoch ?? 0}`,
    handOn: false,
    // Unfenced, as the recipe is usually written: the holder trusts its lock until told otherwise.
    ...(!variant.fenced && !variant.sequencer && { checked: false }),
    async acquire(deadline) {
      const c = await serviceCall("zookeeper connect", SERVICE_CALL_MS, () => clients.services().zookeeper(sessionMs));
      client = c;
      // In flight from here until the release is answered or the acquire fails: no idle audit runs meanwhile (auditIdle).
      const ends = contenderStarts(c, dir);
      ended = ends;
      try {
        return await acquireOn(c, deadline);
      } catch (error) {
        ends();
        throw error;
      }
    },
    async release() {
      const c = client;
      const held = node;
      const ends = ended;
      ended = undefined;
      if (!c || !held) {
        ends?.();
        return false;
      }
      node = undefined;
      try {
        if (lockDelayMs) await zk(c, "setData", SERVICE_CALL_MS, (cb) => c.setData(dir, Buffer.from(`released:${sequence}`), cb)).catch(() => undefined);
        await zk(c, "remove", SERVICE_CALL_MS, removal(c, held));
        return true;
      } catch (error) {
        if (isCode(error, zookeeper.Exception.NO_NODE)) return false;
        // Removed or not, we cannot tell: a znode left behind would block everyone until it goes.
        if (guidOf) void sweepOurs(c, dir, guidOf);
        throw error;
      } finally {
        // The holder is done: whatever of its znode is left is an orphan from here.
        ends?.();
      }
    },
    /** Heard from the server with our znode still there: the session lives a timeout from the call. */
    async renew() {
      const c = client;
      const held = node;
      if (!c || !held) return false;
      const stat = await zk<zookeeper.Stat | undefined>(c, "exists", SERVICE_CALL_MS, (cb) => c.exists(held, cb));
      return Boolean(stat);
    },
    ...(variant.fenced && { fencingToken: () => sequence }),
    ...(variant.sequencer && {
      async sequencerCurrent() {
        const c = client;
        const held = node;
        if (!c || !held) return false;
        return Boolean(await zk<zookeeper.Stat | undefined>(c, "exists", SERVICE_CALL_MS, (cb) => c.exists(held, cb)));
      },
    }),
  };
}

/** /api/ready: the ensemble answers a session of the strategy's timeout. */
export const zookeeperReady = (clients: LockClients, ttlMs: number): ReadinessCheck => ["zookeeper", async () => {
  const client = await clients.services().zookeeper(zookeeperSessionMs(ttlMs));
  await new Promise<void>((resolve, reject) => client.exists("/", (error) => (error ? reject(error) : resolve())));
}];
