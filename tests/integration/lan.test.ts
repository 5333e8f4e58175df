/**
 * Workshop mode's exposure, seen from another machine: the test makes its own network namespace
 * joined to this one by a veth pair with addresses of its own (never the machine's real LAN), and
 * calls the stack from inside it as a student's phone would.
 *  - Without the LAN option nothing of the stack listens beyond loopback.
 *  - With it (the control API restarts nginx on 0.0.0.0, as `npm run demo -- --lan` starts it) the
 *    store answers there, while /admin, the admin API and the control API refuse.
 */
import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PUBLIC_URL, stackControl } from "../support/stack";

const NS = `locklab-t${process.pid}`;
const HOST_IF = `llh${process.pid % 100000}`;
const NS_IF = `lln${process.pid % 100000}`;
// 10.231.<n>.0/30: a private range of our own choosing, one subnet per test process.
const SUBNET = `10.231.${(process.pid % 250) + 1}`;
const HOST_ADDR = `${SUBNET}.1`;
const NS_ADDR = `${SUBNET}.2`;

const sh = (cmd: string, args: string[]) => execFileSync(cmd, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

/** What a request from inside the namespace gets: status and body, or the connection error's code. */
function fromPhone(url: string, init: { method?: string } = {}): { status?: number; body?: string; error?: string } {
  const script = `
    fetch(${JSON.stringify(url)}, { method: ${JSON.stringify(init.method ?? "GET")}, redirect: "manual", signal: AbortSignal.timeout(3000),
      headers: ${JSON.stringify(init.method === "POST" ? { "content-type": "application/json" } : {})}, body: ${init.method === "POST" ? '"{}"' : "undefined"} })
      .then(async (r) => console.log(JSON.stringify({ status: r.status, body: await r.text() })))
      .catch((e) => console.log(JSON.stringify({ error: (e.cause && e.cause.code) || e.name })));`;
  return JSON.parse(sh("ip", ["netns", "exec", NS, process.execPath, "-e", script]).trim()) as { status?: number; body?: string; error?: string };
}

/** Every TCP port the stack listens on (from the kernel's table, matched against the stack's own addresses). */
function listeningSockets(): { addr: string; port: number }[] {
  return sh("ss", ["-ltnH"]).split("\n").filter(Boolean).map((line) => {
    const local = line.trim().split(/\s+/)[3] ?? "";
    const at = local.lastIndexOf(":");
    return { addr: local.slice(0, at), port: Number(local.slice(at + 1)) };
  });
}

/** The stack's ports: every address in its env, plus the members' peer and quorum ports. */
function stackPorts(): number[] {
  const ports = new Set<number>();
  for (const name of ["REDIS_NODES", "SENTINELS", "SENTINEL_REDIS", "ZOOKEEPER_HOSTS", "ETCD_ENDPOINTS", "DATABASE_URL", "PUBLIC_URL", "STACK_CONTROL_URL", "APP_PORTS"]) {
    for (const match of (process.env[name] ?? "").matchAll(/:(\d{2,5})\b/g)) ports.add(Number(match[1]));
  }
  for (const port of (process.env.APP_PORTS ?? "3001,3002").split(",")) ports.add(Number(port));
  for (const address of (process.env.ETCD_ENDPOINTS ?? "").split(",")) ports.add(Number(address.split(":")[1]) + 1);
  for (let n = 1; n <= 3; n++) ports.add(12888 + n).add(13888 + n);
  return [...ports].filter((port) => Number.isInteger(port) && port > 0);
}

beforeAll(() => {
  try {
    sh("ip", ["netns", "add", NS]);
    sh("ip", ["link", "add", HOST_IF, "type", "veth", "peer", "name", NS_IF]);
    sh("ip", ["link", "set", NS_IF, "netns", NS]);
    sh("ip", ["addr", "add", `${HOST_ADDR}/30`, "dev", HOST_IF]);
    sh("ip", ["link", "set", HOST_IF, "up"]);
    sh("ip", ["netns", "exec", NS, "ip", "addr", "add", `${NS_ADDR}/30`, "dev", NS_IF]);
    sh("ip", ["netns", "exec", NS, "ip", "link", "set", NS_IF, "up"]);
    sh("ip", ["netns", "exec", NS, "ip", "link", "set", "lo", "up"]);
  } catch (error) {
    throw new Error(`this test needs root and iproute2 to make a network namespace: ${(error as { stderr?: string }).stderr ?? error}`);
  }
});

afterAll(async () => {
  await stackControl("/nginx/expose/loopback").catch(() => {});
  try {
    sh("ip", ["link", "del", HOST_IF]);
  } catch {
    // gone with the namespace
  }
  sh("ip", ["netns", "del", NS]);
});

describe("without the LAN option", () => {
  it("no port of the stack listens beyond loopback, and none answers from the other namespace", () => {
    const ours = new Set(stackPorts());
    const sockets = listeningSockets().filter((s) => ours.has(s.port));
    expect(sockets.length).toBeGreaterThanOrEqual(20);
    for (const socket of sockets) expect(socket.addr, `port ${socket.port}`).toMatch(/^(127\.0\.0\.1|\[::1\]|\[::ffff:127\.0\.0\.1\])$/);
    for (const port of [...ours].slice(0, 40)) {
      expect(fromPhone(`http://${HOST_ADDR}:${port}/`).error, `port ${port}`).toBe("ECONNREFUSED");
    }
  });
});

describe("with the LAN option", () => {
  it("serves the store on the namespace's side, while /admin, the admin API and the control API refuse there", async () => {
    const exposed = (await stackControl("/nginx/expose/lan")) as { lan: boolean; storeUrls: string[]; adminFromLan: boolean };
    expect(exposed.lan).toBe(true);
    expect(exposed.adminFromLan).toBe(false);
    expect(exposed.storeUrls).toContain(`http://${HOST_ADDR}:${new URL(PUBLIC_URL).port}`);
    const store = `http://${HOST_ADDR}:${new URL(PUBLIC_URL).port}`;

    const page = fromPhone(`${store}/`);
    expect(page.status).toBe(200);
    expect(page.body).toContain("Keyboard 001");
    expect(fromPhone(`${store}/api/stock`).status).toBe(200);

    for (const path of ["/admin", "/admin/live", "/admin/login", "/api/admin/config", "/api/admin/live"]) {
      const refused = fromPhone(`${store}${path}`);
      expect(refused.status, path).toBe(403);
      expect(JSON.parse(refused.body ?? "{}").code, path).toBe("admin_local_only");
    }
    expect(fromPhone(`${store}/api/admin/session`, { method: "POST" }).status).toBe(403);
    // The control API and the instances themselves stay on loopback.
    const control = new URL(process.env.STACK_CONTROL_URL ?? "http://127.0.0.1:3999");
    expect(fromPhone(`http://${HOST_ADDR}:${control.port}/status`).error).toBe("ECONNREFUSED");
    expect(fromPhone(`http://${HOST_ADDR}:3001/`).error).toBe("ECONNREFUSED");
    // From this machine the admin pages still answer.
    expect((await fetch(`${PUBLIC_URL}/api/admin/config`)).status).toBe(401);

    await stackControl("/nginx/expose/loopback");
    expect(fromPhone(`${store}/`).error).toBe("ECONNREFUSED");
  });
});
