// nginx in front of the app instances, on PUBLIC_PORT: nginx/nginx.conf.template rendered to
// .stack/nginx/nginx.conf, nginx run as a child in the foreground.

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { StackConfig } from "../config";
import { StackError } from "../errors";
import { HttpError } from "../errors";
import { ok, say, tail, warn } from "../log";
import { LOG_DIR, ROOT, STACK_DIR, mkdirp } from "../paths";
import { foreignPort, httpStatus, portAnswers } from "../ports";
import { type ChildHandle, exitDescription, removePidFile, spawnChild, terminate, waitFor } from "../processes";
import type { Service, ServiceFactory } from "../service";
import { type StaleRule, stopStaleGroup } from "../stale";

const NGINX_TEMPLATE = path.join(ROOT, "nginx", "nginx.conf.template");
const NGINX_READY_TIMEOUT_MS = 10_000;

function findNginx(): string {
  for (const p of ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx", "/usr/local/bin/nginx", "/opt/homebrew/bin/nginx"]) {
    if (fs.existsSync(p)) return p;
  }
  return "nginx";
}

/** Substitutes ${NAME} placeholders; nginx's own $variables stay, and so do comment lines. */
export function renderTemplate(template: string, vars: Readonly<Record<string, string>>): string {
  return template
    .split("\n")
    .map((line) =>
      line.trimStart().startsWith("#")
        ? line
        : line.replace(/\$\{([A-Z][A-Z0-9_]*)\}/g, (_whole, name: string) => {
            if (!(name in vars)) throw new StackError(`nginx template: no value for \${${name}}`);
            return vars[name] as string;
          }),
    )
    .join("\n");
}

type Exposure = Pick<StackConfig, "publicHost" | "adminFromLan">;

const isLoopback = (host: string) => host.startsWith("127.");

/**
 * The store's addresses for students to type: with nginx on every interface, one per IPv4
 * address of this machine (loopback last); on one address, that one.
 */
export function storeUrls(host: string, port: number, interfaces = os.networkInterfaces()): string[] {
  if (host !== "0.0.0.0") return [`http://${host}:${port}`];
  // Real interfaces first (the QR code shows the first address): Docker bridges, veths, VPN tunnels after.
  const virtual = (name: string) => /^(docker|br-|veth|virbr|tun|tap|wg|zt|tailscale)/.test(name);
  const lan = Object.entries(interfaces)
    .flatMap(([name, list]) => (list ?? []).map((addr) => ({ name, addr })))
    .filter(({ addr }) => addr.family === "IPv4" && !addr.internal)
    .sort((a, b) => Number(virtual(a.name)) - Number(virtual(b.name)))
    .map(({ addr }) => `http://${addr.address}:${port}`);
  return [...lan, `http://127.0.0.1:${port}`];
}

/**
 * How many people the room expects behind one address (ROOM_PEOPLE_PER_ADDRESS, the app's own
 * default for the projector's setting): 1 where each phone has its own, more behind a NAT.
 */
export function peoplePerAddressFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): number {
  const value = Number(env.ROOM_PEOPLE_PER_ADDRESS ?? "1");
  if (!Number.isInteger(value) || value < 1 || value > 1000) throw new StackError(`ROOM_PEOPLE_PER_ADDRESS: "${env.ROOM_PEOPLE_PER_ADDRESS}" must be a whole number from 1 to 1000`);
  return value;
}

/**
 * The per-address ceilings, sized for `people` behind one address: each person has limits of their
 * own (keyed by their workshop cookie), and an address as a whole may use `people` persons' worth.
 */
export function roomCeilings(people: number): Record<string, string> {
  return {
    ROOM_BUY_RATE: `${10 * people}r/s`,
    ROOM_BUY_BURST: String(20 * people),
    ROOM_LIVE_RATE: `${2 * people}r/s`,
    ROOM_LIVE_BURST: String(10 * people),
    ROOM_LIVE_CONNS: String(4 * people),
    ROOM_JOIN_RATE: `${10 * people}r/m`,
    ROOM_JOIN_BURST: String(5 * people),
    ROOM_PAGE_RATE: `${10 * people}r/s`,
    ROOM_PAGE_BURST: String(40 * people),
    ROOM_PAGE_CONNS: String(16 * people),
  };
}

/** The template's values for nginx's directory `dir` (pidfile, temp dirs), the stack's ports and what it exposes. */
export function nginxVars(cfg: Pick<StackConfig, "apps" | "publicPort"> & Exposure, dir: string, peoplePerAddress = peoplePerAddressFromEnv()): Record<string, string> {
  return {
    ...roomCeilings(peoplePerAddress),
    NGINX_PID: path.join(dir, "nginx.pid"),
    NGINX_ERROR_LOG: path.join(LOG_DIR, "nginx-error.log"),
    NGINX_ACCESS_LOG: `${path.join(LOG_DIR, "nginx-access.log")} locklab buffer=64k flush=1s`,
    NGINX_TEMP_DIR: path.join(dir, "temp"),
    NGINX_LISTEN: `${cfg.publicHost}:${cfg.publicPort}`,
    ADMIN_REFUSED_FROM_LAN: cfg.adminFromLan ? "0" : "1",
    // Each client is who its connection says (phones on the LAN, the hall's 127.1.x.y players).
    CLIENT_ADDR: "$remote_addr",
    APP_UPSTREAMS: cfg.apps.map((a) => `server 127.0.0.1:${a.port} max_fails=0;`).join("\n        "),
  };
}

function renderNginx(cfg: StackConfig & Exposure & { peoplePerAddress: number }): { dir: string; file: string } {
  const dir = mkdirp(path.join(STACK_DIR, "nginx"));
  const temp = mkdirp(path.join(dir, "temp"));
  for (const sub of ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]) mkdirp(path.join(temp, sub));
  const conf = renderTemplate(fs.readFileSync(NGINX_TEMPLATE, "utf8"), nginxVars(cfg, dir, cfg.peoplePerAddress));
  const file = path.join(dir, "nginx.conf");
  fs.writeFileSync(file, conf);
  return { dir, file };
}

export const NGINX_STALE: StaleRule = {
  kind: "nginx",
  isOurs: (_rec, proc) => proc.cmdline.includes(ROOT),
  stop: stopStaleGroup,
};

export const nginx: ServiceFactory = (ctx): Service => {
  // What nginx exposes can change while the stack runs (the control API's /nginx/expose/…).
  // So can the people one address may hold (the projector's setting, through /nginx/room/…).
  const cfg: StackConfig & { publicHost: string; adminFromLan: boolean; peoplePerAddress: number } = { ...ctx.cfg, peoplePerAddress: peoplePerAddressFromEnv() };
  let handle: ChildHandle | null = null;

  const exposure = () => {
    const lan = !isLoopback(cfg.publicHost);
    // The instructor's JOIN_URL, when given, is the one address phones are shown.
    const urls = cfg.joinUrl ? [cfg.joinUrl] : storeUrls(cfg.publicHost, cfg.publicPort);
    return { lan, storeUrls: urls, adminFromLan: lan && cfg.adminFromLan };
  };

  /** Says what is reachable from where, so nobody exposes the store without knowing it. */
  const announceExposure = () => {
    const { lan, storeUrls: urls, adminFromLan } = exposure();
    if (!lan) return;
    warn(`the store is open to the LAN: ${urls.join(", ")}`);
    if (adminFromLan) warn("the admin pages and admin API answer from the LAN too (ADMIN_FROM_LAN=1): anyone there who has the password can use them");
    else say("  the admin pages, admin API and control API answer on this machine only");
  };

  const this_: Service = {
    name: "nginx",
    stage: "proxy",
    stale: NGINX_STALE,

    async claim() {
      if (await portAnswers("127.0.0.1", cfg.publicPort)) throw foreignPort(cfg.publicPort, "PUBLIC_PORT", "nginx");
    },

    async start() {
      const t0 = Date.now();
      const { dir, file } = renderNginx(cfg);
      const bin = findNginx();
      const args = ["-p", `${dir}/`, "-c", file, "-e", path.join(LOG_DIR, "nginx-error.log"), "-g", "daemon off;"];
      const test = spawnSync(bin, ["-t", ...args.slice(0, -2)], { encoding: "utf8" });
      if (test.status !== 0) {
        throw new StackError(`nginx rejected ${file}:\n${(test.stderr || String(test.error)).trim()}`);
      }
      const child = spawnChild("nginx", bin, args, { env: process.env, record: { kind: "nginx", port: cfg.publicPort } });
      handle = child;
      const ready = await waitFor(
        async () => {
          if (child.exitInfo) return true;
          return (await httpStatus(`http://127.0.0.1:${cfg.publicPort}/lb-health`, 1000)) === 200;
        },
        NGINX_READY_TIMEOUT_MS,
        50,
      );
      if (!ready || child.exitInfo) {
        await terminate(child, "SIGKILL");
        throw new StackError(
          `nginx did not start (${exitDescription(child.exitInfo)}); log ${child.logFile}:\n${tail(child.logFile)}\n${tail(path.join(LOG_DIR, "nginx-error.log"))}`,
        );
      }
      ok(`nginx http://${cfg.publicHost}:${cfg.publicPort} → ${cfg.apps.map((a) => a.port).join(", ")}`, t0);
      announceExposure();
    },

    async stop() {
      await terminate(handle, "SIGTERM", 5000);
      if (handle) removePidFile("nginx");
    },

    status: async () => ({ up: await portAnswers("127.0.0.1", cfg.publicPort, 300), url: ctx.env.PUBLIC_URL, ...exposure(), peoplePerAddress: cfg.peoplePerAddress }),

    routes: [
      {
        // Workshop mode switched while the stack runs: nginx restarts on the new address (a
        // reload cannot trade 127.0.0.1:port for 0.0.0.0:port: both would hold the port at once).
        method: "POST",
        path: /^\/nginx\/expose\/(lan|loopback)$/,
        async handle([to]) {
          const host = to === "lan" ? "0.0.0.0" : "127.0.0.1";
          if (handle?.exitInfo) throw new HttpError(409, "nginx_down", "nginx is not running");
          if (host !== cfg.publicHost) {
            await this_.stop();
            cfg.publicHost = host;
            await this_.start();
          }
          return exposure();
        },
      },
      {
        // The room's people per address changed (the projector): the per-address ceilings follow,
        // by a reload (nginx keeps its connections, the phones' live streams among them).
        method: "POST",
        path: /^\/nginx\/room\/(\d{1,4})$/,
        async handle([people]) {
          const count = Number(people);
          if (!(count >= 1 && count <= 1000)) throw new HttpError(400, "bad_people", "people per address: a whole number from 1 to 1000");
          if (!handle || handle.exitInfo || handle.pid === undefined) throw new HttpError(409, "nginx_down", "nginx is not running");
          if (count !== cfg.peoplePerAddress) {
            const previous = cfg.peoplePerAddress;
            cfg.peoplePerAddress = count;
            const { dir, file } = renderNginx(cfg);
            const test = spawnSync(findNginx(), ["-t", "-p", `${dir}/`, "-c", file, "-e", path.join(LOG_DIR, "nginx-error.log")], { encoding: "utf8" });
            if (test.status !== 0) {
              cfg.peoplePerAddress = previous;
              renderNginx(cfg);
              throw new HttpError(500, "nginx_rejected", `nginx rejected the new limits: ${(test.stderr || String(test.error)).trim()}`);
            }
            process.kill(handle.pid, "SIGHUP");
          }
          return { peoplePerAddress: cfg.peoplePerAddress };
        },
      },
    ],
  };
  return this_;
};
