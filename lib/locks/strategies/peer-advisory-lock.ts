import advisoryLock from "advisory-lock";
import type { Pool } from "pg";
import type { LockClients } from "../clients";
import { createPeerStrategy, type PeerLibrary } from "../peer-lock";

/**
 * Lab variant, unsafe: `advisory-lock@2.0.0`, Postgres session advisory locks, on the Postgres
 * the lock pool reaches (its address and credentials; the library opens connections of its own),
 * as its README shows: `advisoryLock(connectionString)(name)`, then `lock()` (or `tryLock()`) and
 * the `unlock()` it returns, in `finally`.
 *
 * Its defaults: `lock()` waits for the lock forever (no timeout of any kind, not even to connect);
 * every `lock()` and `tryLock()` opens a new connection (a `pg.Client`, no pool) and `unlock()`
 * closes it; the key is two int32 from the SHA-256 of the name; the lock lives as long as that
 * session: no TTL, no lease. The one setting tuned is the wait, which the library has no option
 * for: its only input is the connection string, which here carries Postgres' `lock_timeout` =
 * waitTimeoutMs in its `options` parameter, so `lock()` fails with 55P03 once the buyer's wait is
 * over (counted from when the lock is asked for, after the connect). A wait of 0 is `tryLock()`
 * (pg_try_advisory_lock). The TTL has nothing to map to: a holder keeps the lock however long it
 * works.
 *
 * How it fails: no fencing token. A holder whose session Postgres ended (a restart, a network cut,
 * pg_terminate_backend, a server-side idle timeout) has lost the lock without being told — the
 * library puts no 'error' listener on its connection, so that pg.Client's 'error' event is an
 * uncaught exception (`next start` logs it; any other process ends) — and writes after the next
 * holder: a unit sold twice. Its unlock ignores pg_advisory_unlock's answer. One connection per
 * holder and waiter: past Postgres' max_connections, new ones are refused ("too many clients",
 * 53300), and so are the app's own pools' new connections at that moment. The mutex's own
 * `unlock()` (kept "for backwards compatibility") releases whatever that mutex object last took,
 * someone else's too: not used here.
 *
 * Busy: `tryLock()` said no, lock_timeout (55P03), or Postgres refusing one more connection
 * (53300) — answers from Postgres itself. Anything else (refused, reset, ended): unavailable.
 */
const LIBRARY = "advisory-lock@2.0.0";
const LOCK_NOT_AVAILABLE = "55P03";
const TOO_MANY_CONNECTIONS = "53300";

/** `tryLock()` answered that someone else holds the lock. */
class TryLockRefused extends Error {
  override name = "TryLockRefused";
}

/** The lock pool's server as a connection string, with `lock_timeout` for every session it opens. */
export function connectionString(pool: Pool, lockTimeoutMs: number): string {
  const { connectionString: given, host = "localhost", port = 5432, user = "", password, database = "" } = pool.options;
  const params = lockTimeoutMs > 0 ? `options=${encodeURIComponent(`-c lock_timeout=${lockTimeoutMs}`)}` : "";
  if (given) return params ? `${given}${given.includes("?") ? "&" : "?"}${params}` : given;
  const secret = typeof password === "string" ? `:${encodeURIComponent(password)}` : "";
  const hostPart = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  return `postgresql://${encodeURIComponent(user)}${secret}@${hostPart}:${port}/${encodeURIComponent(database)}${params ? `?${params}` : ""}`;
}

const codeOf = (error: unknown) => (error as { code?: unknown } | undefined)?.code;

export function createPeerAdvisoryLock(clients: LockClients) {
  const peer: PeerLibrary = {
    name: "peer-advisory-lock",
    safe: false,
    library: LIBRARY,
    async acquire(key, options) {
      const mutex = advisoryLock(connectionString(clients.lockPool(), options.waitTimeoutMs))(key);
      const unlock = options.waitTimeoutMs > 0 ? await mutex.lock() : await mutex.tryLock();
      if (!unlock) throw new TryLockRefused(`${key} is held by another session`);
      return {
        // A session lock: held until unlocked or the session ends, however long the holder works.
        validUntil: Infinity,
        // An unlock that fails found its session gone, and the lock went with it.
        release: () => unlock().then(() => true, () => false),
      };
    },
    isBusy: (error) => error instanceof TryLockRefused || codeOf(error) === LOCK_NOT_AVAILABLE || codeOf(error) === TOO_MANY_CONNECTIONS,
    // Every busy answer above came from Postgres itself.
    serversAnswer: async () => true,
  };
  return createPeerStrategy(peer);
}
