// The control API (lib/lab/stack-control.ts is its client): GET /status, the fault-injection routes
// the services add (stop/start a Redis node or Postgres; pause, resume, kill, stop, start an app
// instance; move a Redis node's clock; cut links: GET /network, POST /network/grudge and
// /network/heal) and POST /reset-faults. Every request needs the x-stack-token header; a POST may
// carry a JSON body; answers are JSON, errors `{ code, message }`. Fault operations run one at a
// time; GET routes (/status, /network) are never queued.

import crypto from "node:crypto";
import http from "node:http";
import { HttpError } from "./errors";
import { foreignPort } from "./ports";
import type { Route, Service } from "./service";

export function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const text = `${JSON.stringify(body)}\n`;
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
  res.end(text);
}

export function tokenMatches(given: unknown, expected: string): boolean {
  const a = Buffer.from(String(given ?? ""));
  const b = Buffer.from(expected);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

interface Controllable {
  readonly index: number;
  readonly managed: boolean;
  readonly unmanagedReason?: string;
}

/** The Redis node or app instance a route's `<n>` names, if the stack controls it. */
export function pick<T extends Controllable>(list: readonly T[], n: string | undefined, what: string): T {
  const item = list.find((x) => String(x.index) === n);
  if (!item) throw new HttpError(404, "not_found", `no ${what} ${n} (there are ${list.length})`);
  if (!item.managed) {
    throw new HttpError(
      409,
      "not_managed",
      `${what} ${n} is not controlled by the stack: ${item.unmanagedReason ?? "it was already running when the stack started"}`,
    );
  }
  return item;
}

/** Every service's part, under its name: { postgres, redis, apps, nginx }. */
export async function getStatus(services: readonly Service[]): Promise<Record<string, unknown>> {
  const parts = await Promise.all(services.map(async (s) => [s.name, await s.status()] as const));
  return Object.fromEntries(parts);
}

/** Starts again whatever the control API stopped or paused, service after service. */
export async function resetFaults(services: readonly Service[]): Promise<void> {
  for (const service of services) await service.resetFaults?.();
}

export function controlRoutes(services: readonly Service[]): Route[] {
  return [
    { method: "GET", path: /^\/status$/, handle: () => getStatus(services) },
    ...services.flatMap((s) => s.routes ?? []),
    {
      method: "POST",
      path: /^\/reset-faults$/,
      async handle() {
        await resetFaults(services);
        return getStatus(services);
      },
    },
  ];
}

/** The most a POST body may hold: a grudge over every link of the stack is a few KiB. */
export const MAX_BODY_BYTES = 64 * 1024;

/** A POST's JSON body: undefined when empty; 400 when it is not JSON, 413 when too large. */
export async function readJsonBody(req: http.IncomingMessage, maxBytes = MAX_BODY_BYTES): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw new HttpError(413, "body_too_large", `the request body is over ${maxBytes} bytes`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8").trim();
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HttpError(400, "invalid_json", "the request body is not JSON");
  }
}

/** The request's path without query and trailing slashes. */
export function routePath(url: string | undefined): string {
  return new URL(url ?? "/", "http://control").pathname.replace(/\/+$/, "") || "/";
}

/** The route for a request, with its path's groups as params: 404 when no route has this path,
 * 405 when none takes this method. */
export function matchRoute(
  routes: readonly Route[],
  method: string | undefined,
  pathOnly: string,
): { route: Route; params: string[] } {
  const matches = routes.filter((r) => r.path.test(pathOnly));
  if (matches.length === 0) throw new HttpError(404, "not_found", `no route ${pathOnly}`);
  const route = matches.find((r) => r.method === method);
  if (!route) {
    throw new HttpError(405, "method_not_allowed", `${pathOnly} takes ${matches.map((r) => r.method).join(", ")}`);
  }
  return { route, params: (route.path.exec(pathOnly) ?? []).slice(1) };
}

export interface ControlOptions {
  readonly port: number;
  readonly token: string;
  readonly routes: readonly Route[];
  /** True once the stack is stopping: every request is then refused with 503. */
  isStopping(): boolean;
}

/** Listens on 127.0.0.1:<port>; rejects with a StackError naming STACK_CONTROL_PORT if it is taken. */
export function startControlServer({ port, token, routes, isStopping }: ControlOptions): Promise<http.Server> {
  let queue: Promise<unknown> = Promise.resolve(); // one fault operation at a time; status is never queued
  const server = http.createServer(async (req, res) => {
    try {
      if (!tokenMatches(req.headers["x-stack-token"], token)) {
        throw new HttpError(401, "unauthorized", "missing or wrong x-stack-token header (STACK_CONTROL_TOKEN)");
      }
      const { route, params } = matchRoute(routes, req.method, routePath(req.url));
      const body = req.method === "POST" ? await readJsonBody(req) : (req.resume(), undefined);
      if (isStopping()) throw new HttpError(503, "stopping", "the stack is shutting down");
      const run = () => route.handle(params, body);
      const result = req.method === "GET" ? await run() : await (queue = queue.then(run, run));
      sendJson(res, 200, result);
    } catch (err) {
      if (err instanceof HttpError) sendJson(res, err.status, { code: err.code, message: err.message });
      else sendJson(res, 500, { code: "internal", message: err instanceof Error ? err.message : String(err) });
    }
  });
  server.keepAliveTimeout = 1000;
  return new Promise((resolve, reject) => {
    server.once("error", (err: NodeJS.ErrnoException) =>
      reject(err.code === "EADDRINUSE" ? foreignPort(port, "STACK_CONTROL_PORT", "stack control API") : err),
    );
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
}
