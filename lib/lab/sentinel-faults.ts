import Redis from "ioredis";
import { getEnv } from "../env";
import { recordFault } from "../timeline/faults";
import { stackControl } from "../stack/control";

/**
 * The lab's Sentinel faults, asked of the Sentinels and the Redis pair themselves: which member is
 * the primary now, holding replication back on the replica, killing the primary, waiting for the
 * Sentinels to promote the replica.
 */
function connect(address: string): Redis {
  const [host, port] = address.split(":");
  const client = new Redis({ host, port: Number(port), lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 1000, commandTimeout: 2000 });
  client.on("error", () => {});
  return client;
}

async function once<T>(address: string, task: (client: Redis) => Promise<T>): Promise<T> {
  const client = connect(address);
  try {
    return await task(client);
  } finally {
    client.disconnect();
  }
}

/** The primary's host:port as `sentinel` names it, if it answers. */
async function namedBy(sentinel: string): Promise<string | undefined> {
  const answer = await once(sentinel, (c) => c.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", getEnv().SENTINEL_MASTER)).catch(() => undefined);
  return Array.isArray(answer) && answer.length === 2 ? `${answer[0]}:${answer[1]}` : undefined;
}

/** The primary's host:port as the first Sentinel that answers names it. */
export async function sentinelPrimary(): Promise<string> {
  for (const sentinel of getEnv().SENTINELS) {
    const named = await namedBy(sentinel);
    if (named) return named;
  }
  throw new Error("no Sentinel names a primary");
}

/** The stack's member number (1-based, SENTINEL_REDIS order) of `address`. */
function memberOf(address: string): number {
  const index = getEnv().SENTINEL_REDIS.indexOf(address);
  if (index < 0) throw new Error(`${address} is not one of SENTINEL_REDIS`);
  return index + 1;
}

/**
 * `CLIENT PAUSE ms WRITE` on every replica: each still answers the Sentinels, but applies nothing
 * of the replication stream meanwhile. A primary that dies in that time takes its last writes
 * with it: the replica drops what it had received but not applied when the link breaks.
 * `ms` is only a bound (should the runner die): `failOver` lets replication go once the primary is
 * dead, so the kill always lands inside the hold however slow the machine is.
 */
export async function holdReplication(ms: number): Promise<void> {
  const primary = await sentinelPrimary();
  const replicas = getEnv().SENTINEL_REDIS.filter((address) => address !== primary);
  await Promise.all(replicas.map((address) => once(address, (c) => c.call("CLIENT", "PAUSE", String(ms), "WRITE"))));
  await recordFault("fault-start", `replication held back on ${replicas.join(", ")} until the primary dies`).catch(() => {});
}

/**
 * Ends the hold on every member but `dead` once each has seen its link to `dead` break (so what it
 * had received but not applied is dropped, not applied late). Unpausing a member that is not
 * paused does nothing.
 */
async function releaseReplication(dead: string): Promise<void> {
  const others = getEnv().SENTINEL_REDIS.filter((address) => address !== dead);
  const released = await Promise.all(others.map((address) => once(address, async (c) => {
    const deadline = Date.now() + 3000;
    while (Date.now() < deadline) {
      const info = String(await c.info("replication").catch(() => ""));
      if (!/master_link_status:up/.test(info)) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await c.call("CLIENT", "UNPAUSE");
    return true;
  }).catch(() => false)));
  const note = released.every(Boolean)
    ? `replication let go on ${others.join(", ")}`
    : `replication could not be let go on ${others.filter((_, i) => !released[i]).join(", ")} (its pause ends by itself)`;
  await recordFault("fault-end", note).catch(() => {});
}

/**
 * Ends any replication hold at once, on every member that answers: the lab calls it before each
 * case, so a case that failed between holding and failing over never leaves the next one paused.
 */
export async function endReplicationHold(): Promise<void> {
  await Promise.all(getEnv().SENTINEL_REDIS.map((address) => once(address, (c) => c.call("CLIENT", "UNPAUSE")).catch(() => undefined)));
}

/** SIGKILLs the current primary through the stack's control API; resolves with its address. */
async function killPrimary(): Promise<string> {
  const primary = await sentinelPrimary();
  await stackControl(`/sentinel-redis/${memberOf(primary)}/kill`);
  return primary;
}

/**
 * SIGKILLs the primary, waits until the Sentinels name another, then starts the killed one again
 * (it rejoins as the new primary's replica, so a lock that waits for a replica can be had again).
 */
export async function failOver(timeoutMs: number): Promise<void> {
  const old = await killPrimary().catch(async (error: unknown) => {
    await endReplicationHold();
    throw error;
  });
  await releaseReplication(old);
  await awaitFailover(old, timeoutMs);
  await stackControl(`/sentinel-redis/${memberOf(old)}/start`);
}

/** Waits until the Sentinels name a primary other than `previous`. */
async function awaitFailover(previous: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if ((await sentinelPrimary().catch(() => previous)) !== previous) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the Sentinels promoted no replica within ${timeoutMs} ms`);
}

/** Waits until the Sentinels name a primary other than `previous` (a failover they decided themselves). */
export function awaitNewPrimary(previous: string, timeoutMs: number): Promise<void> {
  return awaitFailover(previous, timeoutMs);
}

/**
 * `min-replicas-to-write` and `min-replicas-max-lag` on every member of the pair: a primary with
 * fewer replicas than that acknowledging within the lag refuses writes (NOREPLICAS). 0 turns it off.
 */
export async function setMinReplicas(replicas: number, maxLagS: number): Promise<void> {
  await Promise.all(getEnv().SENTINEL_REDIS.map((address) =>
    once(address, (c) => c.config("SET", "min-replicas-to-write", String(replicas), "min-replicas-max-lag", String(maxLagS))).catch(() => undefined)));
  if (replicas > 0) await recordFault("fault-start", `min-replicas-to-write ${replicas}, max lag ${maxLagS} s on the Sentinel pair`).catch(() => {});
}

interface MemberView {
  address: string;
  /** "master", "slave", or "" when the member did not answer. */
  role: string;
  /** host:port of the primary a replica follows, and whether its link to it is up. */
  follows?: string;
  linkUp: boolean;
}

function fieldOf(info: string, name: string): string | undefined {
  return new RegExp(`^${name}:(.*)$`, "m").exec(info)?.[1]?.trim();
}

async function memberViews(): Promise<MemberView[]> {
  return Promise.all(getEnv().SENTINEL_REDIS.map(async (address) => {
    const info = await once(address, (c) => c.info("replication")).then(String, () => "");
    const host = fieldOf(info, "master_host");
    const port = fieldOf(info, "master_port");
    return { address, role: fieldOf(info, "role") ?? "", follows: host && port ? `${host}:${port}` : undefined, linkUp: fieldOf(info, "master_link_status") === "up" };
  }));
}

/** The primary every Sentinel that answers names, when at least two answer and they agree. */
async function agreedPrimary(): Promise<string | undefined> {
  const named = (await Promise.all(getEnv().SENTINELS.map(namedBy))).filter((address): address is string => address !== undefined);
  return named.length >= 2 && named.every((address) => address === named[0]) ? named[0] : undefined;
}

function settled(primary: string, views: readonly MemberView[]): boolean {
  return views.every((view) => view.address === primary ? view.role === "master" : view.role === "slave" && view.linkUp && view.follows === primary);
}

/**
 * True once the pair agrees with the Sentinels: the member they name reports itself a primary, and
 * every other member replicates from it with its link up. After a partition heals, the old primary
 * is demoted only when the Sentinels reach it again, some seconds later; until then a client may
 * still write to it.
 */
export async function sentinelPairSettled(): Promise<boolean> {
  const primary = await sentinelPrimary().catch(() => undefined);
  return primary !== undefined && settled(primary, await memberViews());
}

/** The pair as the Sentinels and its members see it, for a wait that timed out. */
export async function describeSentinelPair(): Promise<string> {
  const primary = await agreedPrimary().catch(() => undefined);
  const views = await memberViews();
  const members = views.map((view) => `${view.address} ${view.role || "no answer"}${view.follows ? ` of ${view.follows} (link ${view.linkUp ? "up" : "down"})` : ""}`);
  return `Sentinels name ${primary ?? "no agreed primary"}; ${members.join("; ")}`;
}

/**
 * Puts the pair back after a case that split it. A member that still calls itself primary while
 * the Sentinels agree on another is made that one's replica at once. The Sentinels do the same by
 * themselves, but only after they have seen it as a primary across two INFO polls 8 s apart (they
 * poll a replica every 10 s), so 10–20 s after they reach it again, and later still on a loaded
 * machine; the next case would wait for that. Nothing is done while the Sentinels disagree or name
 * a member that is not a primary (a failover still under way). Resolves with what it demoted.
 */
export async function demoteStrayPrimaries(): Promise<string[]> {
  const primary = await agreedPrimary().catch(() => undefined);
  if (!primary) return [];
  const views = await memberViews();
  if (views.find((view) => view.address === primary)?.role !== "master") return [];
  const strays = views.filter((view) => view.address !== primary && view.role === "master").map((view) => view.address);
  const [host, port] = primary.split(":");
  return (await Promise.all(strays.map((address) =>
    once(address, (c) => c.call("REPLICAOF", host!, port!)).then(() => address, () => undefined))))
    .filter((address): address is string => address !== undefined);
}
