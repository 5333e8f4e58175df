/**
 * Loaded by scripts/app-listener.cjs into each app instance: the two routes a hall of phones hits in
 * the same second — POST /api/buy and GET /api/live (pages/api/, lib/http/pages-api.ts) — go
 * straight to their built handlers, on the server `next start` made, without Next's per-request
 * routing in front (rewrites, the route matcher, the request's metadata, the async contexts): on
 * this machine that routing cost an instance ~0.7 ms of CPU per request, about half of a buy told
 * "sold out", and in a hall each phone's answer waits for every other's (docs/benchmarks.md, "The
 * hall straight to its handlers").
 *
 * What a Pages API route is, is kept: the module is the one Next built and loads itself (the same
 * file, through the same require, so one module and one local line per process), its default
 * export is the handler, and it gets Node's request and response, as under Next. Those two
 * handlers read their own body, write their own JSON and catch their own errors; they use nothing
 * Next adds to a request. Everything else, and these paths written any other way (a trailing slash,
 * an encoded letter), is Next's as before.
 *
 * Nothing is served here before Next has answered a request itself: Next runs instrumentation.ts
 * (Redis connected, this instance's stale holders cleared, the reconciler started) before its
 * first answer. If the build has no such route or its module will not load, every request stays
 * Next's, and the reason is printed once.
 */
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const ROUTES = ["/api/buy", "/api/live"];

function pathnameOf(url) {
  const query = url.indexOf("?");
  return query === -1 ? url : url.slice(0, query);
}

/** The built handlers of ROUTES, by path, from the build's pages manifest in `dir` (the app's root). */
async function loadHandlers(dir) {
  const server = path.join(dir, ".next", "server");
  const manifest = JSON.parse(fs.readFileSync(path.join(server, "pages-manifest.json"), "utf8"));
  const handlers = new Map();
  for (const route of ROUTES) {
    if (!manifest[route]) throw new Error(`the build has no ${route} page`);
    // A built page may be an async module (a promise of its exports), as Next itself awaits.
    const exports = await require(path.join(server, manifest[route]));
    const handler = exports && exports.default;
    if (typeof handler !== "function") throw new Error(`${route}: the built module exports no handler`);
    handlers.set(route, handler);
  }
  return handlers;
}

/** Puts ROUTES in front of `server`'s one request listener (Next's); anything else is left as it is. */
function directRoutes(server, dir = process.cwd()) {
  const listeners = server.listeners("request");
  if (listeners.length !== 1 || process.env.LOCKLAB_DIRECT_ROUTES === "0") return;
  const next = listeners[0];
  let handlers;
  let nextAnswered = false;
  const answered = () => {
    nextAnswered = true;
  };
  loadHandlers(dir).then(
    (loaded) => (handlers = loaded),
    (error) => console.error(`app-direct-routes: every request stays Next's: ${error.message}`),
  );
  server.removeListener("request", next);
  server.on("request", (req, res) => {
    const handler = nextAnswered && handlers ? handlers.get(pathnameOf(req.url || "/")) : undefined;
    if (!handler) {
      if (!nextAnswered) res.once("finish", answered);
      return next.call(server, req, res);
    }
    // A throw, even a synchronous one, is this request's 500: never an exception that ends the instance.
    new Promise((resolve) => resolve(handler(req, res))).catch((error) => {
      console.error(`app-direct-routes: ${req.method} ${req.url}: ${error && error.stack ? error.stack : error}`);
      if (!res.headersSent) {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ code: "internal", message: "Something went wrong on our side." }));
      } else res.destroy();
    });
  });
}

module.exports = { directRoutes, loadHandlers, pathnameOf, ROUTES };
