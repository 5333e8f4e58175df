import { LockUnavailableError } from "./types";

/**
 * A call to a lock service that may hang while the service has no quorum (ZooKeeper and etcd queue
 * requests rather than fail them): bounded, and any failure is the service being unavailable.
 * After a call timed out, calls to the same service fail at once for a second, so the buyers
 * lined up behind it are answered 503 too, instead of each waiting out its own timeout.
 */
export async function serviceCall<T>(what: string, timeoutMs: number, call: () => Promise<T>): Promise<T> {
  const service = what.split(" ")[0] ?? what;
  const openUntil = unanswered.get(service) ?? 0;
  if (Date.now() < openUntil) throw new LockUnavailableError(`${service} did not answer a moment ago (is a quorum up?)`);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      unanswered.set(service, Date.now() + UNANSWERED_MS);
      reject(new LockUnavailableError(`${what}: no answer within ${timeoutMs} ms (is a quorum up?)`));
    }, Math.max(1, timeoutMs));
  });
  try {
    return await Promise.race([call(), timeout]);
  } catch (error) {
    if (error instanceof LockUnavailableError) throw error;
    throw new LockUnavailableError(`${what}: ${(error as Error).message}`, { cause: error });
  } finally {
    clearTimeout(timer);
  }
}

/** Services whose last call timed out, and until when the next calls fail at once. */
const unanswered = new Map<string, number>();
const UNANSWERED_MS = 1000;

/** The longest one call to a lock service may take before the buyer is answered 503. */
export const SERVICE_CALL_MS = 2000;

/**
 * Chubby's lock-delay, shared by the ZooKeeper and etcd locks: each holder marks the lock
 * `held:<token>` when it gets it and `released:<token>` when it lets it go. A new holder that finds
 * another holder's `held:` mark knows that holder's session or lease ran out without a release,
 * and waits `lockDelayMs` before it acts, so a paused old holder's late write has time to land
 * (or to be refused) before a new one starts. Counted from when the new holder noticed, so it
 * waits at least as long as Chubby would.
 */
export function lockDelayOwed(mark: string | undefined, token: number, lockDelayMs: number): number {
  if (!lockDelayMs || !mark?.startsWith("held:")) return 0;
  return mark === `held:${token}` ? 0 : lockDelayMs;
}
