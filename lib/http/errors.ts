import { ZodError } from "zod";
import { AppError } from "../errors";

/** An HTTP-level refusal with a stable code (bad JSON, body too large, wrong method, …). */
export class HttpError extends AppError {
  override name = "HttpError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    override readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

export interface ErrorBody {
  code: string;
  message: string;
  fieldErrors?: Record<string, string[]>;
  [extra: string]: unknown;
}

export function jsonError(status: number, body: ErrorBody, headers?: HeadersInit): Response {
  return Response.json(body, { status, headers });
}

/**
 * The one place errors become responses: a domain error (AppError) answers with its own status
 * and code, a zod error is 422 with field errors, anything unexpected a 500 with no internals.
 */
export function errorResponse(error: unknown, extra: Record<string, unknown> = {}): Response {
  if (error instanceof AppError) {
    const headers = error.retryAfterS === undefined ? undefined : { "retry-after": String(error.retryAfterS) };
    return jsonError(error.status, { code: error.code, message: error.message, ...error.details, ...extra }, headers);
  }
  if (error instanceof ZodError) {
    // A Map, not an object literal: a field may be named "__proto__".
    const fields = new Map<string, string[]>();
    for (const issue of error.issues) {
      const names = issue.path.length ? [issue.path.join(".")] : issue.code === "unrecognized_keys" ? issue.keys : ["body"];
      for (const name of names) fields.set(name, [...(fields.get(name) ?? []), issue.message]);
    }
    const fieldErrors = Object.fromEntries(fields);
    return jsonError(422, { code: "invalid_fields", message: "Some fields are missing or invalid.", fieldErrors, ...extra });
  }
  console.error(error);
  return jsonError(500, { code: "internal", message: "Something went wrong on our side.", ...extra });
}

/** The shape of every public route handler: call it, and map whatever it throws to a JSON error. */
export function publicRoute<Context = unknown>(
  handler: (request: Request, context: Context) => Promise<Response>,
  /** Turns what the handler threw into the error to answer with (e.g. any failure → unavailable). */
  onError: (error: unknown) => unknown = (error) => error,
): (request: Request, context: Context) => Promise<Response> {
  return async (request, context) => {
    try {
      return await handler(request, context);
    } catch (error) {
      return errorResponse(onError(error));
    }
  };
}

export const methodNotAllowed = (allowed: string) => () =>
  jsonError(405, { code: "method_not_allowed", message: `Use ${allowed} on this route.` }, { allow: allowed });
