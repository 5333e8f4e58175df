/**
 * The local stack's decisions, as pure functions of what it observed: who gets a port
 * (scripts/stack/stale.ts: decidePortClaim), which pidfiles a previous run left are ours to stop
 * and which are just removed (staleAction with each service's rule), when a crashed app instance
 * is restarted (services/app-supervisor.ts: crashVerdict) and the order services stop in. No process is
 * started or signalled.
 */
import { describe, expect, it } from "vitest";
import { ROOT } from "../../scripts/stack/paths";
import type { PidRecord } from "../../scripts/stack/processes";
import { crashVerdict } from "../../scripts/stack/services/app-supervisor";
import { APP_STALE, apps } from "../../scripts/stack/services/apps";
import { NGINX_STALE, nginx } from "../../scripts/stack/services/nginx";
import { POSTGRES_STALE, postgres } from "../../scripts/stack/services/postgres";
import { REDIS_STALE, redis } from "../../scripts/stack/services/redis";
import { SERVICES } from "../../scripts/stack/services/index";
import { etcd } from "../../scripts/stack/services/etcd";
import { hasNetAdmin, network } from "../../scripts/stack/services/network";
import { pgbouncer } from "../../scripts/stack/services/pgbouncer";
import { redisCluster } from "../../scripts/stack/services/redis-cluster";
import { sentinel, sentinelRedis } from "../../scripts/stack/services/sentinel";
import { zookeeper } from "../../scripts/stack/services/zookeeper";
import {
  type PortFacts,
  type ProcessFacts,
  LAB_RUNNER_RULE,
  SUPERVISOR_RULE,
  decidePortClaim,
  staleAction,
  supervisorFirst,
} from "../../scripts/stack/stale";
import { stopOrder } from "../../scripts/stack/stack";

describe("decidePortClaim", () => {
  const base: PortFacts = { answers: false, local: true, explicit: false };

  it.each<[string, PortFacts, string]>([
    ["a free local port: start our own server", base, "start"],
    ["a free port on another host: cannot start it", { ...base, local: false }, "unreachable"],
    ["a free port on another host, even when set explicitly", { ...base, local: false, explicit: true }, "unreachable"],
    ["a default port something holds: refuse", { ...base, answers: true }, "foreign"],
    ["a default port a Redis server holds: still refuse", { ...base, answers: true, speaks: true }, "foreign"],
    ["an explicit address that answers: use it as is", { ...base, answers: true, explicit: true }, "use-existing"],
    ["an explicit Redis address with a Redis there", { ...base, answers: true, explicit: true, speaks: true }, "use-existing"],
    ["an explicit Redis address with something else there", { ...base, answers: true, explicit: true, speaks: false }, "foreign"],
    ["our own Redis from a run whose pidfile is gone", { ...base, answers: true, speaks: true, leftover: true }, "stop-leftover"],
    ["our own leftover beats an explicit address", { ...base, answers: true, explicit: true, speaks: true, leftover: true }, "stop-leftover"],
    ["a remote server that answers, explicitly set", { answers: true, local: false, explicit: true }, "use-existing"],
  ])("%s", (_what, facts, claim) => {
    expect(decidePortClaim(facts)).toBe(claim);
  });
});

describe("stale pidfiles", () => {
  const SELF = 4242;
  const alive = (cmdline: string, environ: string[] = []): ProcessFacts => ({ alive: true, cmdline, environ });
  const dead: ProcessFacts = { alive: false, cmdline: "", environ: [] };
  const rec = (kind: string, extra: Partial<PidRecord> = {}): PidRecord => ({ pid: 100, kind, supervisor: 99, ...extra });
  const dataDir = `${ROOT}/.stack/pg`;

  it.each<[string, PidRecord, ProcessFacts, typeof REDIS_STALE, "stop" | "forget"]>([
    ["our supervisor, started by path", rec("supervisor"), alive(`node ${ROOT}/scripts/bootstrap.mjs test`), SUPERVISOR_RULE, "stop"],
    ["a pid now used by another program", rec("supervisor"), alive("node /srv/other/server.js"), SUPERVISOR_RULE, "forget"],
    ["a redis-server", rec("redis", { port: 7001 }), alive("redis-server 127.0.0.1:7001"), REDIS_STALE, "stop"],
    ["a redis pid reused by something else", rec("redis", { port: 7001 }), alive("sleep 1000"), REDIS_STALE, "forget"],
    ["our postgres on our data directory", rec("postgres", { dataDir }), alive(`/usr/lib/postgresql/16/bin/postgres -D ${dataDir} -c port=55432`), POSTGRES_STALE, "stop"],
    ["a postgres on another data directory", rec("postgres", { dataDir }), alive("/usr/lib/postgresql/16/bin/postgres -D /var/lib/postgresql/16/main"), POSTGRES_STALE, "forget"],
    ["a postgres pidfile without its data directory", rec("postgres"), alive(`postgres -D ${dataDir}`), POSTGRES_STALE, "forget"],
    ["an app by its command line", rec("app", { port: 3001 }), alive(`node ${ROOT}/node_modules/next/dist/bin/next start -p 3001`), APP_STALE, "stop"],
    ["an app that renamed itself, by its environment", rec("app"), alive("next-server (v16.4.5)", ["PATH=/usr/bin", `LOCKLAB_STACK_ROOT=${ROOT}`]), APP_STALE, "stop"],
    ["another checkout's app", rec("app"), alive("next-server (v16.4.5)", ["LOCKLAB_STACK_ROOT=/srv/other-checkout"]), APP_STALE, "forget"],
    ["our nginx", rec("nginx"), alive(`nginx: master process nginx -p ${ROOT}/.stack/nginx/ -c ${ROOT}/.stack/nginx/nginx.conf`), NGINX_STALE, "stop"],
    ["the system's nginx", rec("nginx"), alive("nginx: master process /usr/sbin/nginx"), NGINX_STALE, "forget"],
    ["a redis-server, the very process recorded", rec("redis", { port: 7001, startTime: 5000 }), { ...alive("redis-server 127.0.0.1:7001"), startTime: 5000 }, REDIS_STALE, "stop"],
    ["a redis-server that got the pid since (started later)", rec("redis", { port: 7001, startTime: 5000 }), { ...alive("redis-server 127.0.0.1:7001"), startTime: 9000 }, REDIS_STALE, "forget"],
    ["a lab run's runner, the very process recorded", rec("lab-runner", { startTime: 5000 }), { ...alive("node --import tsx scripts/lab-scenario-runner.ts 3"), startTime: 5000 }, LAB_RUNNER_RULE, "stop"],
    ["a lab runner's pid, reused", rec("lab-runner", { startTime: 5000 }), { ...alive("node --import tsx scripts/lab-scenario-runner.ts 3"), startTime: 7000 }, LAB_RUNNER_RULE, "forget"],
    ["a lab runner without /proc, by its command line", rec("lab-runner"), alive("node --import tsx scripts/lab-scenario-runner.ts 3"), LAB_RUNNER_RULE, "stop"],
    ["a lab runner's pid, now another program's, without /proc", rec("lab-runner"), alive("sleep 1000"), LAB_RUNNER_RULE, "forget"],
  ])("%s → %s", (_what, record, proc, rule, action) => {
    expect(rule.kind).toBe(record.kind);
    expect(staleAction(record, proc, rule, SELF)).toBe(action);
  });

  it("forgets a pidfile whose process is gone, whatever it was", () => {
    for (const rule of [SUPERVISOR_RULE, REDIS_STALE, POSTGRES_STALE, APP_STALE, NGINX_STALE]) {
      expect(staleAction(rec(rule.kind, { dataDir }), dead, rule, SELF)).toBe("forget");
    }
  });

  it("never stops this very process, even when its pidfile says supervisor", () => {
    expect(staleAction(rec("supervisor", { pid: SELF }), alive(`node ${ROOT}/x`), SUPERVISOR_RULE, SELF)).toBe("forget");
  });

  it("forgets a kind no service claims", () => {
    expect(staleAction(rec("zookeeper"), alive(`java ${ROOT}`), undefined, SELF)).toBe("forget");
  });

  it("handles the previous supervisor first, the rest in their order", () => {
    const records = [{ kind: "redis", n: 1 }, { kind: "app", n: 2 }, { kind: "supervisor", n: 3 }, { kind: "nginx", n: 4 }];
    expect(supervisorFirst(records).map((r) => r.n)).toEqual([3, 1, 2, 4]);
    expect(records.map((r) => r.n)).toEqual([1, 2, 3, 4]); // not sorted in place
  });

  it("every service of the stack brings the rule for the pidfiles it writes", () => {
    const kinds = [REDIS_STALE, POSTGRES_STALE, APP_STALE, NGINX_STALE].map((r) => r.kind);
    expect(kinds).toEqual(["redis", "postgres", "app", "nginx"]);
  });
});

describe("crashVerdict", () => {
  const now = 1_000_000;

  it("restarts after a first crash and counts it", () => {
    expect(crashVerdict([], now, false)).toEqual({ crashes: [now], restart: true });
  });

  it("gives up on the sixth unexpected exit within a minute", () => {
    const five = [now - 50_000, now - 40_000, now - 30_000, now - 20_000, now - 10_000];
    expect(crashVerdict(five.slice(1), now, false).restart).toBe(true);
    expect(crashVerdict(five, now, false)).toEqual({ crashes: [...five, now], restart: false });
  });

  it("forgets crashes older than a minute", () => {
    const old = [now - 120_000, now - 90_000, now - 60_000, now - 61_000, now - 70_000, now - 1000];
    expect(crashVerdict(old, now, false)).toEqual({ crashes: [now - 1000, now], restart: true });
  });

  it("does not count a kill asked for through the control API", () => {
    const five = [1, 2, 3, 4, 5].map((i) => now - i * 1000);
    expect(crashVerdict(five, now, true)).toEqual({ crashes: five, restart: true });
  });
});

describe("service order", () => {
  it("stops the stages backwards, one service at a time", () => {
    const services = [
      { name: "postgres", stage: "store" as const },
      { name: "redis", stage: "store" as const },
      { name: "apps", stage: "app" as const },
      { name: "nginx", stage: "proxy" as const },
    ];
    expect(stopOrder(services).map((s) => s.name)).toEqual(["nginx", "apps", "redis", "postgres"]);
    expect(stopOrder([services[3]!, services[2]!, services[0]!]).map((s) => s.name)).toEqual(["nginx", "apps", "postgres"]);
  });

  it("stops the network's nft table last, after every server and client that its cuts could touch", () => {
    const services = [
      { name: "network", stage: "network" as const },
      { name: "redis", stage: "store" as const },
      { name: "apps", stage: "app" as const },
    ];
    expect(stopOrder(services).map((s) => s.name)).toEqual(["apps", "redis", "network"]);
  });

  it("starts the network first (every connection is marked from its first packet), then Postgres (its initdb blocks), Redis, the lock services' clusters and PgBouncer, the apps and nginx", () => {
    expect(SERVICES).toEqual([network, postgres, redis, sentinelRedis, sentinel, redisCluster, zookeeper, etcd, pgbouncer, apps, nginx]);
  });
});

describe("the network service's capability check", () => {
  // /proc/self/status of root in a container: Docker's default set, and with --cap-add NET_ADMIN (bit 12).
  const status = (capEff: string) => `Name:\tnode\nCapInh:\t0000000000000000\nCapEff:\t${capEff}\nCapBnd:\t${capEff}\n`;
  it("sees NET_ADMIN in the effective set, or its absence (a container started without --cap-add NET_ADMIN)", () => {
    expect(hasNetAdmin(status("00000000a80425fb"))).toBe(false);
    expect(hasNetAdmin(status("00000000a80435fb"))).toBe(true);
    expect(hasNetAdmin(status("000001ffffffffff"))).toBe(true);
    // No /proc to read: nft itself will say whether it may.
    expect(hasNetAdmin("")).toBe(true);
  });
});
