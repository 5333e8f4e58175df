import { ZodError } from "zod";
import { LockBusyError, LockLostError, LockUnavailableError } from "../locks/types";
import { AdminNotConfiguredError } from "../auth/session";
import { StackControlError } from "../lab/stack-control";
import { SoldOutError, StoreUnavailableError, UnknownProductError } from "../purchase/errors";
import { RunConflictError, RunNotFoundError, RunTokenError } from "../runs/errors";

/** An HTTP-level refusal with a stable code (bad JSON, body too large, wrong method, …). */
export class HttpError extends Error {
  override name = "HttpError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
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

/** The one place errors become responses. Anything unexpected is a 500 with no internals. */
export function errorResponse(error: unknown, extra: Record<string, unknown> = {}): Response {
  if (error instanceof HttpError) {
    return jsonError(error.status, { code: error.code, message: error.message, ...error.details, ...extra });
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
  if (error instanceof SoldOutError) return jsonError(409, { code: "sold_out", message: error.message, ...extra });
  if (error instanceof UnknownProductError) return jsonError(404, { code: "not_found", message: error.message, ...extra });
  if (error instanceof LockBusyError) {
    return jsonError(423, { code: "busy", message: error.message, ...extra }, { "retry-after": "1" });
  }
  if (error instanceof LockUnavailableError || error instanceof StoreUnavailableError) {
    return jsonError(503, { code: "unavailable", message: error.message, ...extra }, { "retry-after": "1" });
  }
  if (error instanceof RunNotFoundError) return jsonError(404, { code: "not_found", message: error.message, ...extra });
  if (error instanceof RunConflictError) return jsonError(409, { code: error.code, message: error.message, ...extra });
  if (error instanceof RunTokenError) return jsonError(401, { code: "unauthorized", message: error.message, ...extra });
  if (error instanceof AdminNotConfiguredError) {
    return jsonError(503, { code: "admin_not_configured", message: error.message, ...extra });
  }
  if (error instanceof StackControlError) {
    return jsonError(503, { code: "stack_control_unavailable", message: error.message, ...extra });
  }
  if (error instanceof LockLostError) return jsonError(503, { code: "lock_lost", message: error.message, ...extra });
  console.error(error);
  return jsonError(500, { code: "internal", message: "Something went wrong on our side.", ...extra });
}

export const methodNotAllowed = (allowed: string) => () =>
  jsonError(405, { code: "method_not_allowed", message: `Use ${allowed} on this route.` }, { allow: allowed });
