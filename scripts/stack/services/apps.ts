// The Next.js instances (`next start` of the production build), one child each on its APP_PORTS
// port; their supervision (readiness, restart after a crash) is in app-supervisor.ts.

import fs from "node:fs";
import path from "node:path";
import { pick } from "../control";
import { HttpError } from "../errors";
import { ok, say, warn } from "../log";
import { ROOT } from "../paths";
import { foreignPort, portAnswers } from "../ports";
import { removePidFile, running, signal, sleep, terminate } from "../processes";
import type { Service, ServiceFactory } from "../service";
import { type StaleRule, decidePortClaim, stopStaleGroup } from "../stale";
import { type App, newApp, resumeApp, startApp, startAppAgain, stopApp } from "./app-supervisor";

/** Next.js replaces its process title, so an instance is also recognised by its environment. */
export const APP_STALE: StaleRule = {
  kind: "app",
  isOurs: (_rec, proc) => proc.cmdline.includes(ROOT) || proc.environ.includes(`LOCKLAB_STACK_ROOT=${ROOT}`),
  stop: stopStaleGroup,
};

export const apps: ServiceFactory = (ctx): Service => {
  const { cfg } = ctx;
  const list: App[] = cfg.apps.map(newApp);

  const notRunning = (app: App) => new HttpError(409, "not_running", `${app.instance} is ${app.state}`);

  return {
    name: "apps",
    stage: "app",
    stale: APP_STALE,

    async claim() {
      for (const app of list) {
        app.managed = ctx.opts.apps !== false;
        app.state = "stopped";
        const answers = await portAnswers("127.0.0.1", app.port);
        switch (decidePortClaim({ answers, local: true, explicit: cfg.appsExplicit })) {
          case "start":
            continue;
          case "use-existing":
            app.managed = false;
            app.state = "running";
            say(`✓ ${app.instance} http://127.0.0.1:${app.port} (already running, used as is)`);
            continue;
          default:
            throw foreignPort(app.port, "APP_PORTS", app.instance);
        }
      }
    },

    async start() {
      const managed = list.filter((a) => a.managed);
      if (managed.length && !fs.existsSync(path.join(ROOT, ".next", "BUILD_ID"))) {
        warn("no production build (.next/BUILD_ID); app instances not started. Run: node scripts/bootstrap.mjs stack");
        for (const a of managed) {
          a.managed = false;
          a.unmanagedReason = "there was no production build to start";
        }
        return;
      }
      await Promise.all(
        managed.map(async (app) => {
          const started = await startApp(ctx, app);
          ok(`${app.instance} http://127.0.0.1:${app.port} pid ${app.handle?.pid}`, started);
        }),
      );
    },

    async stop() {
      await Promise.all(
        list.map(async (app) => {
          if (!app.handle) return;
          app.intentionalStop = true;
          await terminate(app.handle, "SIGTERM", 5000); // SIGCONT first, so a paused app can exit
          app.state = "stopped";
          removePidFile(app.instance);
        }),
      );
    },

    status: async () =>
      list.map((a) => ({
        index: a.index,
        port: a.port,
        instance: a.instance,
        state: a.state,
        managed: a.managed,
        pid: running(a.handle) ? a.handle.pid : null,
      })),

    routes: [
      {
        method: "POST",
        path: /^\/apps\/(\d+)\/pause$/,
        async handle([n]) {
          const app = pick(list, n, "app");
          if (app.state !== "running") throw notRunning(app);
          signal(app.handle?.pid, "SIGSTOP");
          app.state = "paused";
          say(`… ${app.instance} paused (SIGSTOP)`);
          return { instance: app.instance, state: app.state, pid: app.handle?.pid };
        },
      },
      {
        method: "POST",
        path: /^\/apps\/(\d+)\/resume$/,
        async handle([n]) {
          const app = pick(list, n, "app");
          await resumeApp(app);
          return { instance: app.instance, state: app.state, pid: app.handle?.pid ?? null };
        },
      },
      {
        method: "POST",
        path: /^\/apps\/(\d+)\/kill$/,
        async handle([n]) {
          const app = pick(list, n, "app");
          if (!running(app.handle)) throw notRunning(app);
          const killed = app.handle;
          app.killRequested = true;
          signal(killed.pid, "SIGKILL");
          await killed.exited;
          await sleep(0); // let onAppExit schedule the restart
          if (app.restarting) await app.restarting;
          if (app.state !== "running") {
            throw new HttpError(500, "restart_failed", `${app.instance} did not come back; see ${app.handle?.logFile}`);
          }
          return { instance: app.instance, state: app.state, killedPid: killed.pid, pid: app.handle?.pid };
        },
      },
      {
        method: "POST",
        path: /^\/apps\/(\d+)\/stop$/,
        async handle([n]) {
          const app = pick(list, n, "app");
          await stopApp(app);
          return { instance: app.instance, state: app.state };
        },
      },
      {
        method: "POST",
        path: /^\/apps\/(\d+)\/start$/,
        async handle([n]) {
          const app = pick(list, n, "app");
          await startAppAgain(ctx, app);
          return { instance: app.instance, state: app.state, pid: app.handle?.pid ?? null };
        },
      },
    ],

    async resetFaults() {
      await Promise.all(list.filter((a) => a.managed).map((a) => startAppAgain(ctx, a)));
    },
  };
};
