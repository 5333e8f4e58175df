import { createTranslator } from "next-intl";
import { ZodError, type core } from "zod";
import { AppError, StoreUnavailableError, errorChain, errorValues } from "../errors";
import { codeMessage, publicErrorMessage, type ApiErrorCode, type TranslationValues } from "../i18n/api-errors";
import { DEFAULT_LOCALE, localeOfRequest, type Locale } from "../i18n/locales";
import { messagesFor } from "../i18n/messages";
import { getLog } from "../log";
import { isConnectionError } from "../store-call";

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
 * An error's human message in `locale`, by its stable code (messages/<locale>.json, `apiErrors`):
 * ICU with the error's values. English keeps the error's own message, which is more precise (it
 * names the resource, the milliseconds waited) and is what the logs say; so does a code with no
 * translation, or one whose values are missing.
 */
export function humanMessage(code: string, english: string, values: TranslationValues, locale: Locale): string {
  if (locale === DEFAULT_LOCALE) return english;
  return codeMessage(code, values, locale) ?? english;
}

/** The ICU values of a zod issue: its bounds, the type or the options it wanted. */
function issueValues(issue: core.$ZodIssue): TranslationValues {
  switch (issue.code) {
    case "too_small":
      return { origin: issue.origin, minimum: Number(issue.minimum), inclusive: String(issue.inclusive ?? true) };
    case "too_big":
      return { origin: issue.origin, maximum: Number(issue.maximum), inclusive: String(issue.inclusive ?? true) };
    case "invalid_type":
      return { expected: issue.expected };
    case "invalid_value":
      return { values: issue.values.map(String).join(", ") };
    case "not_multiple_of":
      return { divisor: Number(issue.divisor) };
    default:
      return {};
  }
}

/**
 * A field's validation message in `locale` (messages/<locale>.json, `apiErrors`), the most precise
 * one there is: a named cross-field check's (`checks`, by the refine's `params.check`), the field's
 * own for the fields a person types (`fields`, by field and zod issue code), else the issue code's
 * (`issues`, with the issue's bounds). English is the issue's own: the schema's words, or zod's.
 */
function fieldMessage(field: string, issue: core.$ZodIssue, locale: Locale): string {
  if (locale === DEFAULT_LOCALE) return issue.message;
  const { checks, fields, issues } = messagesFor(locale).apiErrors;
  const check: unknown = issue.code === "custom" ? issue.params?.check : undefined;
  const key =
    typeof check === "string" && Object.hasOwn(checks, check) ? `checks.${check}`
      : Object.hasOwn(fields, field) && Object.hasOwn(fields[field as keyof typeof fields], issue.code) ? `fields.${field}.${issue.code}`
        : Object.hasOwn(issues, issue.code) ? `issues.${issue.code}`
          : undefined;
  if (!key) return issue.message;
  let failed = false;
  const t = createTranslator({ locale, messages: messagesFor(locale), namespace: "apiErrors", onError: () => (failed = true) });
  const text = t(key as ApiErrorCode, issueValues(issue));
  return failed ? issue.message : text;
}

/** An answer as status, JSON body and headers: what errorResponse sends, and what a Pages API route writes as it is. */
export interface JsonAnswer {
  readonly status: number;
  readonly body: Readonly<Record<string, unknown>>;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Who reads an error answer. @default the public: anyone, signed in or not */
export interface Audience {
  /**
   * A signed-in admin (an /api/admin route past its session check): a failure of our own servers
   * is said in the error's own words (its host, its driver's), as the admin pages show it.
   */
  readonly admin?: boolean;
  /** The caller logs the error, details and all, itself (the purchase route logs every purchase). */
  readonly logged?: boolean;
}

/**
 * The one place errors become answers: a domain error (AppError) answers with its own status
 * and code, a zod error is 422 with field errors, a store that did not answer 503, anything
 * unexpected a 500 with no internals.
 * `code` is a stable English identifier; `message` is in `locale` (the request's: localeOfRequest).
 * A failure of our own servers (a 5xx) may carry what no visitor should read — a host and port, a
 * driver's words — so the public is told what happened by its code alone, in its language
 * (publicErrorMessage), and the error's own words go to the log; an admin reads them.
 */
export function errorAnswer(error: unknown, extra: Record<string, unknown> = {}, locale: Locale = DEFAULT_LOCALE, audience: Audience = {}): JsonAnswer {
  if (error instanceof AppError) {
    const headers = error.retryAfterS === undefined ? undefined : { "retry-after": String(error.retryAfterS) };
    const values = errorValues(error);
    const withheld = error.status >= 500 && !audience.admin;
    if (withheld && !audience.logged) getLog().warn({ code: error.code, status: error.status, detail: errorChain(error) }, "answered without its details");
    const message = withheld ? publicErrorMessage(error.code, values, locale) : humanMessage(error.code, error.message, values, locale);
    return { status: error.status, body: { code: error.code, message, ...error.details, ...extra }, ...(headers && { headers }) };
  }
  if (error instanceof ZodError) {
    // A Map, not an object literal: a field may be named "__proto__".
    const fields = new Map<string, string[]>();
    for (const issue of error.issues) {
      const names = issue.path.length ? [issue.path.join(".")] : issue.code === "unrecognized_keys" ? issue.keys : ["body"];
      for (const name of names) fields.set(name, [...(fields.get(name) ?? []), fieldMessage(name, issue, locale)]);
    }
    const fieldErrors = Object.fromEntries(fields);
    const message = humanMessage("invalid_fields", "Some fields are missing or invalid.", {}, locale);
    return { status: 422, body: { code: "invalid_fields", message, fieldErrors, ...extra } };
  }
  // A Redis node or Postgres that does not answer, on a path that did not wrap its call in
  // storeCall (a read of the figures, a run's record): the dependency's 503, never a 500.
  if (isConnectionError(error)) return errorAnswer(new StoreUnavailableError(`a backing server did not answer: ${(error as Error).message}`, { cause: error }), extra, locale, audience);
  getLog().error({ err: error, detail: errorChain(error) }, "unexpected error");
  return { status: 500, body: { code: "internal", message: publicErrorMessage("internal", {}, locale), ...extra } };
}

/** errorAnswer as a web Response, for the App Router's route handlers. */
export function errorResponse(error: unknown, extra: Record<string, unknown> = {}, locale: Locale = DEFAULT_LOCALE, audience: Audience = {}): Response {
  const { status, body, headers } = errorAnswer(error, extra, locale, audience);
  return Response.json(body, { status, headers });
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
      return errorResponse(onError(error), {}, localeOfRequest(request));
    }
  };
}

/** The JSON 405 of a route that serves only `allowed` (its Allow header). */
export const methodNotAllowedAnswer = (allowed: string): JsonAnswer =>
  ({ status: 405, body: { code: "method_not_allowed", message: `Use ${allowed} on this route.` }, headers: { allow: allowed } });

export const methodNotAllowed = (allowed: string) => () => {
  const { status, body, headers } = methodNotAllowedAnswer(allowed);
  return Response.json(body, { status, headers });
};
