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

const CONNECTION_FAILURE =
  /ECONNREFUSED|ECONNRESET|EPIPE|Connection is closed|Command timed out|MaxRetriesPerRequest|Stream isn't writeable|enableOfflineQueue|Can't reach database|P1001|P1017|connection terminated|terminating connection|Connection terminated|timeout exceeded when trying to connect|57P01|57P03/i;

export function isConnectionError(error: unknown): boolean {
  if (error instanceof LockBusyError || error instanceof LockUnavailableError || error instanceof LockLostError) return false;
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return CONNECTION_FAILURE.test(`${error.name} ${String(code ?? "")} ${error.message}`);
}
