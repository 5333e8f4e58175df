/**
 * Preloaded into each app instance (`node -r ./scripts/listen-backlog.cjs …/next start`): gives the
 * HTTP server a listen backlog of LISTEN_BACKLOG (4096) connections instead of Node's 511, which
 * `next start` offers no option for. When 1,000 buyers arrive at once, nginx opens about 500
 * connections to each instance in the same instant; with 511 the accept queue overflowed
 * (TcpExtListenOverflows), the kernel dropped the SYNs, nginx's connects timed out and max_fails took
 * the instance out of rotation: fast 502s and unanswered buyers. The kernel still caps the backlog
 * at net.core.somaxconn. Only a listen(port, host[, callback]) call — the one `next start` makes —
 * gets it; any call that names a backlog or passes options keeps what it asked for.
 */
"use strict";
const net = require("node:net");

const backlog = Number.parseInt(process.env.LISTEN_BACKLOG || "4096", 10);
const listen = net.Server.prototype.listen;

net.Server.prototype.listen = function listenWithBacklog(...args) {
  if (Number.isInteger(backlog) && backlog > 0 && typeof args[0] === "number" && typeof args[1] === "string"
    && (args.length === 2 || typeof args[2] === "function")) {
    args.splice(2, 0, backlog);
  }
  return listen.apply(this, args);
};
