/**
 * The base of every error the API answers on purpose: each domain error carries its HTTP status
 * and a stable `code`, so lib/http/errors.ts maps them in one line and a new domain needs no new
 * branch there. Anything that is not an AppError (or a zod validation error) is a 500.
 */
export abstract class AppError extends Error {
  abstract readonly status: number;
  abstract readonly code: string;
  /** Seconds a client should wait before trying again (the Retry-After header), when it may. */
  readonly retryAfterS?: number;
  /** Extra fields for the JSON error body. */
  readonly details?: Readonly<Record<string, unknown>>;
  /**
   * A sale's rule said no (a drop not open or closed, the rate limit, one order per buyer): the
   * rules working, not a failure. Metrics count it as `refused`.
   */
  readonly ruleRefusal?: boolean;
}

/** The values an error's translated message may use: its details' plain fields, and how long to wait. */
export function errorValues(error: AppError): Record<string, string | number> {
  const values: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(error.details ?? {})) {
    if (typeof value === "string" || typeof value === "number") values[name] = value;
  }
  if (error.retryAfterS !== undefined) values.retryAfterS = error.retryAfterS;
  return values;
}

/**
 * What a record keeps of an error it cannot answer with at once (a lab case's): its English
 * message, and its code and values when it has them, so whoever reads the record later can say it
 * in their own language (app/api/admin/lab/runs/[id]).
 */
export interface KeptError {
  readonly error: string;
  readonly errorCode?: string;
  readonly errorValues?: Readonly<Record<string, string | number>>;
}

/**
 * An error as the log reads it: its message, then each cause's ("the order could not be recorded
 * ← connect ECONNREFUSED 127.0.0.1:55432"). What the public is never told (lib/http/errors.ts).
 */
export function errorChain(error: unknown): string {
  const parts: string[] = [];
  let at: unknown = error;
  for (let depth = 0; at !== undefined && at !== null && depth < 5; depth++) {
    parts.push(at instanceof Error ? `${at.name === "Error" ? "" : `${at.name}: `}${at.message}` : String(at));
    at = at instanceof Error ? at.cause : undefined;
  }
  return parts.join(" ← ");
}

export function keptError(error: unknown): KeptError {
  const message = error instanceof Error ? error.message : String(error);
  return error instanceof AppError ? { error: message, errorCode: error.code, errorValues: errorValues(error) } : { error: message };
}

/** 404 for a record named by id in a URL (a run, a sale): `id` as the caller wrote it. */
export abstract class NotFoundError extends AppError {
  readonly status = 404;
  readonly code = "not_found";
  constructor(noun: string, id: number | string) {
    super(typeof id === "number" ? `no ${noun} ${id}` : `no ${noun} "${id.slice(0, 40)}": ${noun} ids are positive whole numbers`);
  }
}

/**
 * What a 503 `unavailable` says became of the buyer's unit, when a unit was taken: its order not
 * recorded yet (the unit stays reserved, and is recorded as theirs or put back), or put back on the
 * shelf. `server` when none was: a server did not answer and nothing changed. The public message
 * of each (messages/*.json, `apiErrors.unavailable`) is chosen by it.
 */
export type UnavailableReason = "server" | "order_pending" | "put_back";

/** 503: a store the request needs (Redis node 1, PostgreSQL) did not answer; nothing was changed. */
export class StoreUnavailableError extends AppError {
  override name = "StoreUnavailableError";
  readonly status = 503;
  readonly code = "unavailable";
  override readonly retryAfterS = 1;
  override readonly details: Readonly<{ reason: UnavailableReason; unit?: number }>;
  constructor(message: string, options: { cause?: unknown; reason?: UnavailableReason; unit?: number } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.details = { reason: options.reason ?? "server", ...(options.unit === undefined ? {} : { unit: options.unit }) };
  }
}
