/**
 * Preloaded into each app instance (`node -r ./scripts/app-listener.cjs …/next start`): how the
 * instance's HTTP server listens, which `next start` offers no option for. Only the call `next
 * start` makes — listen(port, host[, callback]) — is changed; any call that names a backlog or
 * passes options keeps what it asked for.
 *
 * 1. The listen backlog is LISTEN_BACKLOG (4096) instead of Node's 511. When 1,000 buyers arrive at
 *    once, nginx opens about 500 connections to each instance in the same instant; with 511 the
 *    accept queue overflowed (TcpExtListenOverflows), the kernel dropped the SYNs, nginx's connects
 *    timed out and max_fails took the instance out of rotation. The kernel caps it at somaxconn.
 *
 * 2. Several acceptors on one socket. Since libuv 1.45 (Node 20) a listening handle accepts one
 *    connection per turn of the event loop (libuv/libuv#3696). Under load a turn of this app lasts
 *    10–20 ms, so an instance took in about 60 new connections a second: the ~500 nginx opened for
 *    a burst of buyers waited in the accept queue for up to 12 s, while the requests on connections
 *    already accepted were answered in milliseconds (measured: 1,178 buyers of 1,000 in flight
 *    unanswered after 5.5 s). The stack supervisor therefore binds
 *    the socket itself (scripts/stack/app-socket.ts) and hand it to the instance as
 *    LOCKLAB_LISTEN_FDS descriptors (3, 4, …: the same socket each time, as systemd's socket
 *    activation numbers them); one handle per descriptor accepts one connection per turn each, and
 *    every connection goes to the one HTTP server. Without the variable (`next start` by hand) the
 *    server binds its port as usual.
 *
 * 3. In `next start` only: POST /api/buy and GET /api/live go straight to their built handlers
 *    (scripts/app-direct-routes.cjs says why and what is kept); LOCKLAB_DIRECT_ROUTES=0 leaves
 *    every request to Next.
 */
"use strict";
const http = require("node:http");
const net = require("node:net");
const { directRoutes } = require("./app-direct-routes.cjs");

const FIRST_INHERITED_FD = 3;
const backlog = positive(process.env.LISTEN_BACKLOG, 4096);
const inheritedFds = positive(process.env.LOCKLAB_LISTEN_FDS, 0);
const listen = net.Server.prototype.listen;
let inheritedTaken = false;

function positive(raw, fallback) {
  const value = Number.parseInt(raw || "", 10);
  return Number.isInteger(value) && value > 0 ? value : fallback;
}

/** listen(port, host) or listen(port, host, callback): the call `next start` makes. */
function isPortAndHost(args) {
  return typeof args[0] === "number" && typeof args[1] === "string" && (args.length === 2 || typeof args[2] === "function");
}

// Only into `next start` (the supervisor's command), in the app's own folder.
const isNextStart = /[\\/]next[\\/]dist[\\/]bin[\\/]next$/.test(process.argv[1] || "") && process.argv[2] === "start";
let routed = !isNextStart;

net.Server.prototype.listen = function listenForNextStart(...args) {
  if (!isPortAndHost(args)) return listen.apply(this, args);
  // 3. The hall's two routes straight to their handlers (scripts/app-direct-routes.cjs), on the
  //    first HTTP server `next start` listens with.
  if (!routed && this instanceof http.Server) {
    routed = true;
    directRoutes(this);
  }
  const callback = typeof args[2] === "function" ? args[2] : undefined;
  if (inheritedFds === 0 || inheritedTaken) return listen.call(this, args[0], args[1], backlog, callback);
  // The first such server takes the inherited socket; its port and host were chosen by whoever bound it.
  inheritedTaken = true;
  const acceptors = [];
  for (let fd = FIRST_INHERITED_FD + 1; fd < FIRST_INHERITED_FD + inheritedFds; fd++) {
    const acceptor = net.createServer({ noDelay: true });
    acceptor.on("connection", (socket) => this.emit("connection", socket));
    acceptor.on("error", (error) => this.emit("error", error));
    // The backlog is passed again, and as an argument (Node reads no options.backlog with a
    // descriptor): a listen() on a listening socket sets it anew, to 511 if none is given.
    listen.call(acceptor, { fd }, backlog);
    acceptors.push(acceptor);
  }
  this.once("close", () => acceptors.forEach((acceptor) => acceptor.close()));
  return listen.call(this, { fd: FIRST_INHERITED_FD }, backlog, callback);
};
