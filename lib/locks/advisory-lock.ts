import type { Pool, PoolClient } from "pg";
import type { LockClients } from "./clients";
import { advisoryKey } from "./keys";
import { leaseEnd, now } from "./lease";
import { classifyPgError, connectForLock } from "./pg-connection";
import { holdSharedLock, kindOf, type SharedLock } from "./shared-lock";
import { LockBusyError, type LockOptions, type LockStrategy } from "./types";

/**
 * The session advisory lock behind pg-advisory and pg-advisory-pooled: `pg_advisory_lock` on a
 * hash of the resource's name, held by the Postgres session that took it until that same session
 * runs `pg_advisory_unlock` or ends. Waiters queue inside Postgres (lock_timeout bounds the wait)
 * and the unlock wakes the first. Advisory locks are reentrant per session: a session asking again
 * for a lock it holds gets it at once, and needs as many unlocks to let it go.
 *
 * `direct`: a connection of the lock pool straight to Postgres, kept from the acquire to the
 * release. A lease too: Postgres ends a session idle for longer than the TTL
 * (`idle_session_timeout`) and so frees its lock while the holder may still be working; the write
 * is fenced with a token from a Postgres sequence and the lease is checked before it.
 *
 * `pooler`: the same calls on a connection of the pool through PgBouncer in transaction mode,
 * which is a client of PgBouncer, not a Postgres session. Each statement is a transaction of its
 * own, run on whichever server connection PgBouncer lends it, and the lock stays behind on that
 * server connection when it goes back to the pool. PgBouncer resets nothing between clients in
 * transaction mode (its DISCARD ALL, which would unlock, runs only with server_reset_query_always),
 * and lends the most recently used connection first. So the next buyer's pg_advisory_lock usually
 * lands on the session that holds the lock and is granted at once (reentrant): two holders. An
 * unlock that lands on another server connection answers false and leaves the lock behind, held
 * by nobody, until some other unlock happens to run on its connection (pgbouncer#102, #617).
 */
export interface AdvisoryLockVariant {
  readonly name: string;
  readonly lab?: boolean;
  readonly via: "direct" | "pooler";
}

export function createAdvisoryLock(clients: LockClients, variant: AdvisoryLockVariant): LockStrategy {
  const pooled = variant.via === "pooler";
  return {
    name: variant.name,
    safe: !pooled,
    lab: variant.lab,
    ...(pooled && { readiness: () => [["pgbouncer", () => clients.bouncerPool().query("SELECT 1")]] as const }),
    withLock: (resource, options, critical) =>
      holdSharedLock(options, sessionLock(pooled ? clients.bouncerPool() : clients.lockPool(), resource, options, pooled), critical),
  };
}

/**
 * The lock's key as SQL over $1 (the resource's name) and $2 (the config epoch). Straight to
 * Postgres, the 64-bit key the transaction-scoped lock uses too. Through the pooler, the two-number
 * key space (which never overlaps the 64-bit one), numbered by the epoch: a lock it leaves behind
 * on one of PgBouncer's server connections blocks neither the safe advisory locks nor the next sale.
 */
const keyOf = (pooled: boolean) => (pooled ? "($2::int, hashtext($1))" : `(${advisoryKey("$1")})`);

function sessionLock(pool: Pool, resource: string, options: LockOptions, pooled: boolean): SharedLock {
  const key = keyOf(pooled);
  const keyParams = pooled ? [resource, (options.epoch ?? 0) % 2 ** 31] : [resource];
  const waitParam = `$${keyParams.length + 1}`;
  let client: PoolClient | undefined;
  let sessionEnded = false;
  let fencingToken: number | undefined;
  // Postgres ending the session (the lease ran out) is an 'error' event on a checked-out client:
  // expected here, and never an uncaught exception.
  const onSessionError = () => {
    sessionEnded = true;
  };
  const giveBack = (discard: boolean) => {
    const taken = client;
    client = undefined;
    taken?.off("error", onSessionError);
    taken?.release(discard || sessionEnded);
  };
  return {
    kind: kindOf(pooled ? "pg-advisory-pooled" : "pg-advisory", options),
    handOn: false,
    checked: !pooled,
    async acquire(deadline) {
      client = await connectForLock(pool, resource, options.waitTimeoutMs);
      client.on("error", onSessionError);
      let locked = false;
      try {
        if (options.waitTimeoutMs <= 0) {
          // A wait timeout of 0 is "try once, never wait" (a lock_timeout of 0 would wait forever).
          const { rows: [answer] } = await client.query<{ locked: boolean }>(`SELECT pg_try_advisory_lock${key} AS locked`, keyParams);
          if (!answer?.locked) throw new LockBusyError(resource, options.waitTimeoutMs);
        } else {
          // The subquery sets the session's lock_timeout before the lock is asked for (OFFSET 0
          // keeps the planner from folding it into the outer query).
          const waitLeftMs = Math.max(1, Math.floor(deadline - Date.now()));
          await client.query(`SELECT pg_advisory_lock${key} FROM (SELECT set_config('lock_timeout', ${waitParam}, false) OFFSET 0) AS waiting`, [...keyParams, String(waitLeftMs)]);
        }
        locked = true;
        if (pooled) return Infinity; // as the lock is usually written: no lease, no fence
        // The lease starts when this statement is sent: Postgres counts the idle time after answering it.
        const sentAt = now();
        const { rows: [lease] } = await client.query<{ token: string }>(
          "SELECT set_config('idle_session_timeout', $1, false), nextval('lock_fence_seq')::text AS token",
          [String(Math.max(1, options.ttlMs))],
        );
        fencingToken = Number(lease!.token);
        return leaseEnd(sentAt, options.ttlMs);
      } catch (error) {
        // Busy holds nothing and keeps its connection; a session that may hold the lock (taken,
        // then the lease statement failed) is discarded, which frees the lock with it.
        giveBack(locked || !(error instanceof LockBusyError || (error as { code?: string }).code === "55P03"));
        throw classifyPgError(error, resource, options.waitTimeoutMs);
      }
    },
    async release() {
      if (!client) return true;
      let discard = false;
      try {
        // The session goes back to the pool with no idle timeout, or Postgres would end it there.
        const { rows: [answer] } = await client.query<{ released: boolean }>(
          `SELECT pg_advisory_unlock${key} AS released FROM (SELECT set_config('idle_session_timeout', '0', false) OFFSET 0) AS reset`,
          keyParams,
        );
        // Through the pooler: false when the unlock ran on a server connection that does not hold the lock.
        return answer?.released === true;
      } catch {
        // The session is gone (its lease ran out, Postgres stopped), and its lock with it.
        discard = true;
        return false;
      } finally {
        giveBack(discard);
      }
    },
    fencingToken: () => fencingToken,
  };
}
