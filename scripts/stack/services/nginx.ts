// nginx in front of the app instances, on PUBLIC_PORT: nginx/nginx.conf.template (shared with
// docker-compose) rendered to .stack/nginx/nginx.conf, nginx run as a child in the foreground.

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { StackConfig } from "../config";
import { StackError } from "../errors";
import { ok, tail } from "../log";
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

/** The template's values for nginx's directory `dir` (pidfile, temp dirs) and the stack's ports. */
export function nginxVars(cfg: Pick<StackConfig, "apps" | "publicPort">, dir: string): Record<string, string> {
  return {
    NGINX_PID: path.join(dir, "nginx.pid"),
    NGINX_ERROR_LOG: path.join(LOG_DIR, "nginx-error.log"),
    NGINX_ACCESS_LOG: `${path.join(LOG_DIR, "nginx-access.log")} locklab buffer=64k flush=1s`,
    NGINX_TEMP_DIR: path.join(dir, "temp"),
    NGINX_LISTEN: `127.0.0.1:${cfg.publicPort}`,
    APP_UPSTREAMS: cfg.apps.map((a) => `server 127.0.0.1:${a.port} max_fails=1 fail_timeout=5s;`).join("\n        "),
  };
}

function renderNginx(cfg: StackConfig): { dir: string; file: string } {
  const dir = mkdirp(path.join(STACK_DIR, "nginx"));
  const temp = mkdirp(path.join(dir, "temp"));
  for (const sub of ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]) mkdirp(path.join(temp, sub));
  const conf = renderTemplate(fs.readFileSync(NGINX_TEMPLATE, "utf8"), nginxVars(cfg, dir));
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
  const { cfg } = ctx;
  let handle: ChildHandle | null = null;

  return {
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
      ok(`nginx http://127.0.0.1:${cfg.publicPort} → ${cfg.apps.map((a) => a.port).join(", ")}`, t0);
    },

    async stop() {
      await terminate(handle, "SIGTERM", 5000);
      if (handle) removePidFile("nginx");
    },

    status: async () => ({ up: await portAnswers("127.0.0.1", cfg.publicPort, 300), url: ctx.env.PUBLIC_URL }),
  };
};
