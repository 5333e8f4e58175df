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

/** 503: a store the request needs (Redis node 1, PostgreSQL) did not answer; nothing was changed. */
export class StoreUnavailableError extends AppError {
  override name = "StoreUnavailableError";
  readonly status = 503;
  readonly code = "unavailable";
  override readonly retryAfterS = 1;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
