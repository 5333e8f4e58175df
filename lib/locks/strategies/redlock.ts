import { randomUUID } from "node:crypto";
import type Redis from "ioredis";
import type { LockClients } from "../clients";
import { contend } from "../contend";
import { driftMs, now } from "../lease";
import { lineLetGo, lineLock, withLocalLine } from "../local-line";
import { releaseChannel } from "../release-signal";
import { ACQUIRED, lockScripts } from "../scripts";
import { lockKey, storeFenceKey } from "../keys";
import { kindsOf, type SharedLock } from "../shared-lock";
import { LockBusyError, LockUnavailableError, type LockOptions, type LockStrategy } from "../types";

/**
 * Redlock over N independent Redis masters: held when a majority granted the token lock and the
 * validity (TTL − elapsed − clock drift) is still positive. Safe while work < validity; it fails
 * on node restarts without persistence, clock jumps and process pauses. Buyers line up locally.
 *
 * The token lock is requested on every node in parallel (short per-node timeout); a failed
 * attempt is released everywhere and retried after a release or the holder's TTL, with jitter.
 */
export interface RedlockSettings {
  /**
   * Give up on a node that has not answered within this time. Short next to the TTL, but not so
   * short that event-loop lag under load reads as a dead node. @default 200
   */
  readonly perNodeTimeoutMs: number;
  /** Clock drift allowance as a share of the TTL. @default 0.01 */
  readonly driftFactor: number;
  /** Fixed drift allowance added to the share. @default 2 */
  readonly driftFixedMs: number;
  /** Random delay in [0, jitter) before each retry. @default 5 */
  readonly retryJitterMs: number;
}

export const DEFAULT_REDLOCK_SETTINGS: RedlockSettings = Object.freeze({
  perNodeTimeoutMs: 200,
  driftFactor: 0.01,
  driftFixedMs: 2,
  retryJitterMs: 5,
});

const DOWN_STATUSES = new Set(["reconnecting", "close", "end"]);
const FIRST_CONNECT_STATUSES = new Set(["wait", "connecting", "connect"]);
const FIRST_CONNECT_TIMEOUT_MS = 1000;

type NodeAnswer =
  | { readonly ok: true; readonly value: number }
  /** `down`: the client knows the node is unreachable (not merely slow to answer). */
  | { readonly ok: false; readonly down?: true };

function ask(node: Redis, call: () => Promise<number>, timeoutMs: number): Promise<NodeAnswer> {
  // A node known to be down answers "no" at once instead of costing the full timeout; one still
  // making its first connection gets the connect timeout, not the per-node timeout.
  if (DOWN_STATUSES.has(node.status)) return Promise.resolve({ ok: false, down: true });
  if (FIRST_CONNECT_STATUSES.has(node.status)) timeoutMs = Math.max(timeoutMs, FIRST_CONNECT_TIMEOUT_MS);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<NodeAnswer>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false }), timeoutMs);
  });
  const answer = call().then(
    (value): NodeAnswer => ({ ok: true, value }),
    (): NodeAnswer => ({ ok: false }),
  );
  return Promise.race([answer, timeout]).finally(() => clearTimeout(timer));
}

function voteOf(answer: NodeAnswer): "granted" | "held" | "timeout" | "down" {
  if (answer.ok) return answer.value === ACQUIRED ? "granted" : "held";
  return answer.down ? "down" : "timeout";
}

async function contendOrUnavailable(quorumLost: () => boolean, contending: () => Promise<void>): Promise<void> {
  try {
    await contending();
  } catch (error) {
    if (error instanceof LockBusyError && quorumLost()) {
      throw new LockUnavailableError("too few Redis nodes answered in time for a Redlock quorum", { cause: error });
    }
    throw error;
  }
}

/** The lab's fenced Redlock: the same lock, and a fencing token from the stock's own node. */
export interface RedlockVariant {
  readonly name: string;
  readonly lab?: boolean;
  /**
   * After the majority is had, take a token from a counter on node 1 — the node the stock lives on,
   * which checks it — so a holder whose lock expired under it (a node's clock jumped, a partition)
   * is refused when it writes. Redlock's own nodes cannot give one: each counts on its own.
   */
  readonly fenced?: boolean;
}

export function createRedlock(clients: LockClients, settings: RedlockSettings = DEFAULT_REDLOCK_SETTINGS, variant: RedlockVariant = { name: "redlock" }): LockStrategy {
  const kinds = kindsOf(variant.name);
  return {
    name: variant.name,
    safe: true,
    lab: variant.lab,
    localLine: variant.fenced ? "queue" : "hand-off",
    whenLetGo: (resource) => lineLetGo(resource),
    readiness: () => [["redis majority", async () => {
      const nodes = clients.redisNodes();
      const up = (await Promise.allSettled(nodes.map((node) => node.ping()))).filter((answer) => answer.status === "fulfilled").length;
      if (up < Math.floor(nodes.length / 2) + 1) throw new Error(`${up} of ${nodes.length} Redis nodes answer, fewer than a majority`);
    }]],
    withLock(resource, options, critical) {
      const kind = kinds(options);
      return withLocalLine(resource, options, lineLock(kind, () => redlockOn(clients, settings, variant, resource, options, kind)), critical);
    },
  };
}

/** One buyer's Redlock, built by its line only when the line must acquire (LineLock). */
function redlockOn(
  clients: LockClients, settings: RedlockSettings, variant: RedlockVariant, resource: string, options: LockOptions, kind: string,
): SharedLock {
  const nodes = clients.redisNodes();
  const quorum = Math.floor(nodes.length / 2) + 1;
  const nodeIndexes = nodes.map((_, index) => index);
  const key = lockKey(resource);
  const token = randomUUID();
  const channel = releaseChannel(resource);

  const releaseEverywhere = async () => {
    const answers = await Promise.all(
      nodes.map((node) => ask(node, () => lockScripts(node).releaseTokenLock(key, token, channel), settings.perNodeTimeoutMs)),
    );
    return answers.filter((answer) => answer.ok && answer.value === 1).length;
  };

  let validUntil = 0;
  let fencingToken: number | undefined;
  // Set when the last attempt failed because too few nodes answered (slow, not known down):
  // running out of time then means "unavailable", not "busy".
  let quorumLost = false;
  return {
    kind,
    // Every fenced write needs a token of its own acquisition.
    ...(variant.fenced && { handOn: false, fencingToken: () => fencingToken }),
    async acquire(deadline) {
      await contendOrUnavailable(() => quorumLost, () => contend(
        { resource, deadline, waitTimeoutMs: options.waitTimeoutMs, releases: clients.releases, nodeIndexes, jitterMs: settings.retryJitterMs },
        async () => {
          const sentAt = now();
          const answers = await Promise.all(
            nodes.map((node) => ask(node, () => lockScripts(node).acquireTokenLock(key, token, options.ttlMs), settings.perNodeTimeoutMs)),
          );
          // Validity runs from when the requests were sent, on the monotonic clock.
          validUntil = sentAt + options.ttlMs - driftMs(options.ttlMs, settings.driftFactor, settings.driftFixedMs);
          const granted = answers.filter((answer) => answer.ok && answer.value === ACQUIRED).length;
          options.onObserve?.({ kind: "votes", votes: answers.map(voteOf), validityMs: Math.round(validUntil - now()) });
          if (granted >= quorum && validUntil > now()) return { acquired: true };

          await releaseEverywhere();
          const silent = answers.filter((answer) => !answer.ok);
          quorumLost = silent.length > nodes.length - quorum;
          if (quorumLost && silent.every((answer) => !answer.ok && answer.down)) {
            throw new LockUnavailableError(
              `${silent.length} of ${nodes.length} Redis nodes are down; Redlock needs ${quorum}`,
            );
          }
          const holderTtls = answers.flatMap((answer) => (answer.ok && answer.value >= 0 ? [answer.value] : []));
          return { acquired: false, holderTtlMs: holderTtls.length ? Math.min(...holderTtls) : options.ttlMs };
        },
      ));
      if (variant.fenced) fencingToken = await clients.redis().incr(storeFenceKey(resource));
      return validUntil;
    },
    release: async () => (await releaseEverywhere()) >= quorum,
  };
}
