import { escapeLiteral, type Pool, type PoolClient } from "pg";
import type { LockClients } from "./clients";
import { advisoryKey } from "./keys";
import { leaseEnd, now } from "./lease";
import { classifyPgError, connectForLock, within } from "./pg-connection";
import { LockBusyError, LockLostError, LockUnavailableError, type HeldLock, type LockOptions, type LockStrategy } from "./types";

/**
 * The Postgres transaction locks behind pg-for-update, pg-advisory-xact and their lab variants: a
 * transaction takes `SELECT … FOR UPDATE` on the resource's row in `lock_rows`, or a
 * transaction-scoped advisory lock on its name (`pg_advisory_xact_lock`, which needs no row), and
 * releases it at commit. Waiters queue inside Postgres and are woken by the commit.
 * It is a lease too: the session may sit idle in its transaction for at most the TTL
 * (`idle_in_transaction_session_timeout`), after which Postgres ends it and the next waiter gets
 * the lock while the old holder may still be working. So the holder's write is fenced with a token
 * from a Postgres sequence taken inside the transaction (the fenced stock store refuses a late,
 * lower one) and checks its time left before writing. Holders and waiters use a pool of their own,
 * straight to Postgres or through PgBouncer in transaction mode — where a transaction keeps its
 * server connection from BEGIN to COMMIT, so a lock that ends with the transaction is safe.
 */
export interface RowLockVariant {
  readonly name: string;
  readonly lab?: boolean;
  /** `FOR UPDATE NOWAIT`: a buyer who finds the row locked is answered busy at once. */
  readonly nowait: boolean;
  /**
   * Fence the write and check the lease before it. False only for the lab's `pg-unfenced`, the row
   * lock as it is usually written, which trusts the lock to last until commit.
   */
  readonly fenced: boolean;
  /**
   * What the transaction locks: the resource's row of `lock_rows`, or a transaction-scoped advisory
   * lock on a hash of its name. @default "row"
   */
  readonly lockOn?: "row" | "advisory";
  /** Through PgBouncer in transaction mode (PGBOUNCER_URL) rather than straight to Postgres. @default false */
  readonly viaPooler?: boolean;
}

export function createRowLock(clients: LockClients, variant: RowLockVariant): LockStrategy {
  return {
    name: variant.name,
    safe: variant.fenced,
    lab: variant.lab,
    ...(variant.viaPooler && { readiness: () => [["pgbouncer", () => clients.bouncerPool().query("SELECT 1")]] as const }),
    withLock: (resource, options, critical) =>
      withRowLock(variant.viaPooler ? clients.bouncerPool() : clients.lockPool(), variant, resource, options, critical),
  };
}

async function withRowLock<T>(pool: Pool, variant: RowLockVariant, resource: string, options: LockOptions, critical: (held: HeldLock) => Promise<T>): Promise<T> {
  const startedAt = Date.now();
  const client = await connectForLock(pool, resource, options.waitTimeoutMs);
  // Postgres ending the session (the lease ran out) is an 'error' event on a checked-out client:
  // expected here, and never an uncaught exception.
  const session: Session = { client, ended: false, giveBack: () => {} };
  const onSessionError = () => {
    session.ended = true;
  };
  client.on("error", onSessionError);
  session.giveBack = () => {
    client.off("error", onSessionError);
    client.release(session.ended);
  };
  // An error of the critical section itself passes through as it is.
  let fromCritical = false;
  // Set when the buyer is answered busy at its deadline while the lock's statements are still out.
  let stillOut: Promise<void> | undefined;
  try {
    // A wait timeout of 0 is "try once, never wait": NOWAIT (a lock_timeout of 0 would wait forever).
    const nowait = variant.nowait || options.waitTimeoutMs <= 0;
    const lockOn = variant.lockOn ?? "row";
    const waitLeftMs = Math.max(1, options.waitTimeoutMs - (Date.now() - startedAt));
    // One message: BEGIN, the wait's bound, the lock, then the lease. Postgres runs the lease's
    // statement only once the lock is granted and counts the idle time from its answer, so a lease
    // counted from this send never outlasts Postgres' own while Postgres' clock does not step (the
    // fencing token is what holds if it does). One answer to wait for, not four.
    const sentAt = now();
    const taking = client.query(takeAndLease(lockOn, resource, nowait, waitLeftMs, options.ttlMs)) as unknown as Promise<AnswersOf>;
    // The buyer's wait ends on this process's clock, not when a loaded Postgres gets round to its
    // lock_timeout (which stays as the server's own bound on the wait).
    const answers = nowait
      ? await taking
      : await within(taking, startedAt + options.waitTimeoutMs - Date.now(), () => {
          stillOut = taking.then(() => {});
          return new LockBusyError(resource, options.waitTimeoutMs);
        });
    if (!Array.isArray(answers) || answers.length !== (nowait ? 3 : 4)) throw new Error(`the row lock's message answered ${Array.isArray(answers) ? answers.length : 1} results`);
    const [lock, lease] = [answers.at(-2)!, answers.at(-1)!] as const;
    checkLocked(lockOn, nowait, lock, resource, options.waitTimeoutMs);
    // A buyer whose answer came long after the send (its wait for the lock, or a slow loop) holds
    // less of its lease than that: it starts the lease again with one more statement sent now (any
    // statement ends the idle time Postgres counts), so every holder enters with at least
    // 1 − RENEW_AFTER_WAIT of its TTL less the drift allowance, never on Postgres' word of how long
    // it waited (its clock is a wall clock, and may step). If Postgres already ended the session,
    // the lock was lost before the work: nothing is written, the connection is not reused.
    let validUntil = leaseEnd(sentAt, options.ttlMs);
    if (now() - sentAt > options.ttlMs * RENEW_AFTER_WAIT) {
      validUntil = leaseEnd(now(), options.ttlMs);
      await renewLease(session, resource, validUntil);
    }
    const expiry = new AbortController();
    const timer = setTimeout(() => expiry.abort(), Math.max(0, validUntil - now()));
    let result: T;
    try {
      fromCritical = true;
      result = await critical({
        signal: expiry.signal,
        ...(variant.fenced && { timeLeftMs: () => validUntil - now(), fencingToken: Number(lease.rows[0]!.token) }),
      });
      fromCritical = false;
    } finally {
      clearTimeout(timer);
    }
    // The transaction wrote nothing (nextval is not transactional): whatever the COMMIT answers —
    // the session ended by its lease, a reset connection — the holder's write is what it is, and
    // failing the purchase now would lose the unit it took. The connection is not reused.
    await client.query("COMMIT").catch(() => {
      session.ended = true;
    });
    session.giveBack();
    return result;
  } catch (error) {
    const outcome = fromCritical ? error : classifyPgError(error, resource, options.waitTimeoutMs);
    if (stillOut || outcome instanceof LockBusyError) {
      // Busy is answered now; the transaction is rolled back (freeing a row lock granted after the
      // deadline) and the connection returned once its statements are back — not on the buyer's time.
      void letGoLater(session, stillOut);
      throw outcome;
    }
    if (!session.ended) await client.query("ROLLBACK").catch(() => (session.ended = true));
    session.giveBack();
    throw outcome;
  }
}

/** A lock connection as withRowLock holds it: whether Postgres ended its session, and how it goes back to the pool. */
interface Session {
  readonly client: PoolClient;
  ended: boolean;
  giveBack: () => void;
}

/** How long a connection answered busy at its deadline may take to come back before it is closed instead. */
const LET_GO_BOUND_MS = 10_000;

/** Rolls back and returns a connection whose buyer was already answered, once `stillOut` is back (within LET_GO_BOUND_MS). */
async function letGoLater(session: Session, stillOut: Promise<void> | undefined): Promise<void> {
  let returned = false;
  const giveBackOnce = () => {
    if (returned) return;
    returned = true;
    session.giveBack();
  };
  // A statement still out after this long: the connection is closed rather than lent again.
  const bound = setTimeout(() => {
    session.ended = true;
    giveBackOnce();
  }, LET_GO_BOUND_MS);
  bound.unref?.();
  try {
    await stillOut?.catch(() => {});
    if (!session.ended) await session.client.query("ROLLBACK").catch(() => (session.ended = true));
  } finally {
    clearTimeout(bound);
    giveBackOnce();
  }
}

/**
 * Starts the lease again on the held lock's session (`SELECT 1`), answered before `validUntil`
 * (monotonic ms), or the lock is lost: the session ended (Postgres' idle timeout ran out before
 * the statement arrived) or the statement did not come back while the new lease lasted.
 */
async function renewLease(session: Session, resource: string, validUntil: number): Promise<void> {
  const lost = () => {
    session.ended = true;
    return new LockLostError(resource, "when its holder started its lease again");
  };
  if (session.ended) throw lost();
  try {
    await within(session.client.query("SELECT 1"), validUntil - now(), () => new Error("timeout"));
  } catch {
    throw lost();
  }
}

/** The share of its TTL a holder may lose between the send and the answer before it starts the lease again. */
const RENEW_AFTER_WAIT = 0.1;

/** The answers of `takeAndLease`'s message, one per statement; the last two are the lock's and the lease's. */
type AnswersOf = Array<{ rows: Array<Record<string, unknown>> }>;

/**
 * The one message that opens the transaction, bounds its wait, takes its lock and starts its lease
 * (`idle_in_transaction_session_timeout` and the fencing token from `lock_fence_seq`). Postgres
 * runs a message's statements in turn and stops at the first error, so the token is drawn after
 * the lock is granted, in lock order. Simple-query protocol: the name is escaped here, the wait
 * is a whole number of ms of at least 1, and a TTL that is not is refused (RangeError).
 */
export function takeAndLease(lockOn: "row" | "advisory", resource: string, nowait: boolean, waitLeftMs: number, ttlMs: number): string {
  if (!Number.isInteger(ttlMs) || ttlMs < 1) throw new RangeError(`a row lock's TTL must be a whole number of ms, at least 1 (got ${ttlMs})`);
  const resourceLiteral = escapeLiteral(resource);
  const whole = (ms: number) => (Number.isFinite(ms) ? Math.max(1, Math.floor(ms)) : 1);
  const lock =
    lockOn === "advisory"
      ? `SELECT ${nowait ? "pg_try_advisory_xact_lock" : "pg_advisory_xact_lock"}(${advisoryKey(resourceLiteral)})${nowait ? " AS locked" : ""}`
      : `SELECT name FROM lock_rows WHERE name = ${resourceLiteral} FOR UPDATE${nowait ? " NOWAIT" : ""}`;
  return [
    "BEGIN",
    ...(nowait ? [] : [`SET LOCAL lock_timeout = ${whole(waitLeftMs)}`]),
    lock,
    `SELECT set_config('idle_in_transaction_session_timeout', '${ttlMs}', true), nextval('lock_fence_seq')::text AS token`,
  ].join("; ");
}

/** Busy when a try-lock found the lock taken; unavailable when the resource has no lock row. */
function checkLocked(lockOn: "row" | "advisory", nowait: boolean, lock: { rows: Array<Record<string, unknown>> }, resource: string, waitTimeoutMs: number): void {
  if (lockOn === "advisory") {
    if (nowait && lock.rows[0]?.locked !== true) throw new LockBusyError(resource, waitTimeoutMs);
    return;
  }
  if (lock.rows.length === 0) throw new LockUnavailableError(`no lock row for ${resource}: run the seed (npm run db:seed)`);
}
