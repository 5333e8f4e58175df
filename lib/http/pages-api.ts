import type { IncomingMessage, ServerResponse } from "node:http";
import { cookieValue, localeOfRequest, type WithHeaders } from "../i18n/locales";
import { errorAnswer, methodNotAllowedAnswer, type JsonAnswer } from "./errors";

/**
 * The Pages Router's API routes (pages/api/): the routes a hall of phones hits at once, run on
 * Node's own request and response. For every request the App Router builds a web Request, a
 * Response and the web streams between them, which cost more than anything the store does for a
 * buyer told "sold out": on this machine 2.2 ms of an instance's CPU per buy against 1.4 ms here,
 * and a live stream's snapshot 74–111 µs per phone against 36 µs (docs/benchmarks.md, "The hall on
 * Node's own request"). The rest of the API stays in app/api, where nothing arrives a thousand at once.
 */
export interface PagesRequest extends WithHeaders {
  readonly method: string;
  /** The request itself: its body stream, its socket. */
  readonly node: IncomingMessage;
  cookie(name: string): string | undefined;
}

/** A handler answers JSON, or writes the response itself (a stream) and answers nothing. */
export type PagesHandler = (request: PagesRequest, response: ServerResponse) => Promise<JsonAnswer | undefined> | JsonAnswer | undefined;

const METHODS = ["GET", "POST"] as const;

/** Node's headers as the shared helpers read them (lower-case names; a repeated header joined, as Headers does). */
function headersOf(req: IncomingMessage): WithHeaders["headers"] {
  return {
    get(name: string) {
      const value = req.headers[name.toLowerCase()];
      return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
    },
  };
}

function writeJson(res: ServerResponse, answer: JsonAnswer): void {
  const text = JSON.stringify(answer.body);
  // One write with its length: no chunked encoding, no second packet for the end.
  res.writeHead(answer.status, { ...answer.headers, "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/**
 * A Pages API route serving `handlers` by method; any other method is the JSON 405 naming them
 * (as methodNotAllowed in app/api), and whatever a handler throws is the JSON error errorAnswer
 * maps it to, in the request's language.
 */
export function pagesApiRoute(handlers: Partial<Record<(typeof METHODS)[number], PagesHandler>>) {
  const allowed = METHODS.filter((method) => handlers[method]).join(", ");
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const request: PagesRequest = {
      method: req.method ?? "GET",
      headers: headersOf(req),
      node: req,
      cookie: (name) => cookieValue(req.headers.cookie ?? null, name),
    };
    const handler = handlers[request.method as (typeof METHODS)[number]];
    let answer: JsonAnswer | undefined;
    try {
      answer = handler ? await handler(request, res) : methodNotAllowedAnswer(allowed);
    } catch (error) {
      answer = errorAnswer(error, {}, localeOfRequest(request));
    }
    if (answer && !res.headersSent) writeJson(res, answer);
    else if (answer) res.end();
  };
}
