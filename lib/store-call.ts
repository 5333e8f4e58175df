import { LockBusyError, LockLostError, LockUnavailableError } from "./locks/types";
import { StoreUnavailableError } from "./errors";

/** A Redis or Postgres server that is down or not answering becomes a 503, not a 500. */
export async function storeCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!isConnectionError(error)) throw error;
    throw new StoreUnavailableError(`a backing server did not answer: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * Failures of the server, not of the request: refused, reset or closed connections, a command or
 * connect that timed out, a server shutting down — and the main pool's own bounds
 * (lib/db-config.ts): a statement Postgres cancelled at its statement timeout, and a query the
 * client stopped waiting for (pg's "Query read timeout": no answer at all, a partition). A
 * statement cancelled by hand (57014 "due to user request") is not among them.
 */
const CONNECTION_FAILURE =
  /ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|Connection is closed|Command timed out|MaxRetriesPerRequest|Stream isn't writeable|enableOfflineQueue|Can't reach database|P1001|P1017|P1008|connection terminated|terminating connection|Connection terminated|timeout exceeded when trying to connect|Query read timeout|canceling statement due to statement timeout|57P01|57P03/i;

export function isConnectionError(error: unknown): boolean {
  if (error instanceof LockBusyError || error instanceof LockUnavailableError || error instanceof LockLostError) return false;
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return CONNECTION_FAILURE.test(`${error.name} ${String(code ?? "")} ${error.message}`);
}
