/**
 * Workshop mode's exposure, seen from another machine: the test makes its own network namespace
 * joined to this one by a veth pair with addresses of its own (never the machine's real LAN), and
 * calls the stack from inside it as a student's phone would.
 *  - Without the LAN option nothing of the stack listens beyond loopback.
 *  - With it (the control API restarts nginx on 0.0.0.0, as `npm run demo -- --lan` starts it) the
 *    store answers there, while /admin, the admin API and the control API refuse.
 *  - A classroom that cannot cheat: the student with a terminal gets at most one unit of a
 *    one-per-buyer drop however many buyer ids they invent or times they join, and a loop of live
 *    streams from one address leaves everyone else's purchases answered quickly.
 */
import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetConfig } from "@/lib/sale/config";
import { getRoom, removePerson } from "@/lib/workshop/buyers";
import { HONEST, honest, settledSale } from "../support/accounting";
import { adminFetch, signIn } from "../support/admin";
import { PUBLIC_URL, prepareSale, stackControl } from "../support/stack";

const NS = `locklab-t${process.pid}`;
const HOST_IF = `llh${process.pid % 100000}`;
const NS_IF = `lln${process.pid % 100000}`;
// 10.231.<n>.0/29: a private range of our own choosing, one subnet per test process. The namespace
// has two addresses: two phones on the same Wi-Fi.
const SUBNET = `10.231.${(process.pid % 250) + 1}`;
const HOST_ADDR = `${SUBNET}.1`;
const NS_ADDR = `${SUBNET}.2`;
const NS_ADDR_2 = `${SUBNET}.3`;

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
    sh("ip", ["addr", "add", `${HOST_ADDR}/29`, "dev", HOST_IF]);
    sh("ip", ["link", "set", HOST_IF, "up"]);
    sh("ip", ["netns", "exec", NS, "ip", "addr", "add", `${NS_ADDR}/29`, "dev", NS_IF]);
    sh("ip", ["netns", "exec", NS, "ip", "addr", "add", `${NS_ADDR_2}/29`, "dev", NS_IF]);
    sh("ip", ["netns", "exec", NS, "ip", "link", "set", NS_IF, "up"]);
    sh("ip", ["netns", "exec", NS, "ip", "link", "set", "lo", "up"]);
  } catch (error) {
    throw new Error(`this test needs root and iproute2 to make a network namespace: ${(error as { stderr?: string }).stderr ?? error}`);
  }
});

afterAll(async () => {
  await stackControl("/nginx/expose/loopback").catch(() => {});
  await resetConfig();
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

/**
 * Runs `script` (an ES module body; `STORE` is the store's address as the phone sees it) with node
 * inside the namespace, and returns what it printed as JSON. Asynchronous, so the test can act on
 * this side meanwhile.
 */
async function inNamespace<T>(script: string, store: string): Promise<T> {
  const file = path.join(os.tmpdir(), `locklab-phone-${process.pid}-${Date.now()}.mjs`);
  fs.writeFileSync(file, `const STORE = ${JSON.stringify(store)};\n${PHONE_HELPERS}\n${script}`);
  try {
    const { stdout } = await promisify(execFile)("ip", ["netns", "exec", NS, process.execPath, file], { encoding: "utf8", timeout: 120_000, maxBuffer: 16 << 20 });
    return JSON.parse(stdout.trim().split("\n").pop() ?? "null") as T;
  } finally {
    fs.rmSync(file, { force: true });
  }
}

/** What every phone script has: HTTP from a chosen local address (node:http, so the source address is ours to pick). */
const PHONE_HELPERS = `
import http from "node:http";
export function call(method, path, { from, body, cookie, stream } = {}) {
  const url = new URL(path, STORE);
  return new Promise((resolve) => {
    const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method, localAddress: from, timeout: 10000,
      headers: { ...(body ? { "content-type": "application/json" } : {}), ...(cookie ? { cookie } : {}) } }, (res) => {
      if (stream) { res.once("data", () => { req.destroy(); resolve({ status: res.statusCode }); }); res.once("end", () => resolve({ status: res.statusCode })); return; }
      let text = ""; res.setEncoding("utf8"); res.on("data", (c) => (text += c));
      res.on("end", () => { let json = {}; try { json = JSON.parse(text); } catch {} resolve({ status: res.statusCode, json, setCookie: res.headers["set-cookie"] ?? [] }); });
    });
    req.on("error", (e) => resolve({ status: 0, error: e.code }));
    req.on("timeout", () => req.destroy(new Error("timeout")));
    if (body) req.write(JSON.stringify(body));
    req.end();
  });
}
export const cookieOf = (answer) => (answer.setCookie.find((c) => c.startsWith("locklab_buyer=")) ?? "").split(";")[0];
`;

/** Removes everyone who joined from `address` (an earlier run's people), so a test starts with the address empty. */
async function forgetAddress(address: string): Promise<void> {
  for (const person of (await getRoom()).people) if (person.address === address) await removePerson(person.buyer);
}

describe("a classroom that cannot cheat", () => {
  let admin: string;
  let store: string;
  beforeAll(async () => {
    admin = await signIn();
    await stackControl("/nginx/expose/lan");
    store = `http://${HOST_ADDR}:${new URL(PUBLIC_URL).port}`;
  });

  it("a student with a shell loop gets at most one unit of a one-per-buyer drop of 10, whatever ids they invent", async () => {
    const drop = await adminFetch(admin, "POST", "/api/admin/drop", { stock: 10, countdownS: 0, onePerBuyer: true, strategy: "token-lua", workMs: 1 });
    expect(drop.status, drop.text).toBe(201);
    // A phone new to the store (the address may be a day-old test's): its first joins race for it.
    await forgetAddress(NS_ADDR);
    const student = await inNamespace<{ together: number[]; invented: number[]; joins: number[]; buyers: string[]; withCookies: number[]; madeUp: number[] }>(`
      const from = ${JSON.stringify(NS_ADDR)};
      const joins = [], buyers = [], cookies = [];
      // Six joins sent at once, as one Promise.all from a phone's shell: still one person.
      const together = await Promise.all(Array.from({ length: 6 }, (_, i) => call("POST", "/api/workshop/join", { from, body: { name: "Quick " + i } })));
      for (const joined of together) if (joined.status === 201) { buyers.push(joined.json.buyer); cookies.push(cookieOf(joined)); }
      const invented = [];
      for (let i = 1; i <= 50; i++) invented.push((await call("POST", "/api/buy", { from, body: { buyer: "sneaky-" + i } })).status);
      for (let i = 1; i <= 50; i++) {
        const joined = await call("POST", "/api/workshop/join", { from, body: { name: "Sneaky " + i } });
        joins.push(joined.status);
        if (joined.status === 201) { buyers.push(joined.json.buyer); cookies.push(cookieOf(joined)); }
      }
      await new Promise((r) => setTimeout(r, 2500)); // nginx's per-address bucket refills (10/s): the cookies are tried on their merits
      const withCookies = [];
      for (const cookie of cookies) for (let i = 0; i < 3; i++) withCookies.push((await call("POST", "/api/buy", { from, cookie, body: { buyer: "x" } })).status);
      const madeUp = [];
      for (let i = 0; i < 20; i++) madeUp.push((await call("POST", "/api/buy", { from, cookie: "locklab_buyer=human-" + String(i).padStart(12, "a"), body: { buyer: "y" + i } })).status);
      console.log(JSON.stringify({ together: together.map((joined) => joined.status), invented, joins, buyers, withCookies, madeUp }));
    `, store);
    // Invented ids without a cookie never buy: joined first, or refused (or limited by nginx).
    expect(student.invented.every((status) => status === 401 || status === 429), JSON.stringify(student.invented)).toBe(true);
    expect(student.invented.filter((status) => status === 401).length).toBeGreaterThan(0);
    // However often they join from their one address, and however many joins at once, they are one person.
    expect(student.together.filter((status) => status === 201).length, JSON.stringify(student.together)).toBeGreaterThan(1);
    expect(new Set(student.buyers).size, JSON.stringify(student.buyers)).toBe(1);
    expect(student.joins.filter((status) => status === 429).length).toBeGreaterThan(0);
    // With that person's cookie: one unit, then one_per_buyer (or the rate limits).
    expect(student.withCookies.filter((status) => status === 201)).toHaveLength(1);
    expect(student.madeUp.every((status) => status === 401 || status === 429)).toBe(true);
    const checked = await settledSale();
    expect(checked.orders).toBe(1);
    expect(honest(checked)).toEqual(HONEST);
  });

  it("500 live streams opened and dropped in a loop from one address leave the others' purchases quick and every unit counted", async () => {
    await prepareSale({ strategy: "token-lua", workMs: 1, lockTtlMs: 2000, waitTimeoutMs: 5000 }, 5000);
    const flooding = inNamespace<{ statuses: Record<string, number> }>(`
      const from = ${JSON.stringify(NS_ADDR)};
      const statuses = {};
      let next = 0;
      const worker = async () => {
        while (next < 500) {
          next++;
          const answer = await call("GET", "/api/live", { from, stream: true });
          statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
        }
      };
      await Promise.all(Array.from({ length: 20 }, worker));
      console.log(JSON.stringify({ statuses }));
    `, store);
    // Meanwhile: a phone at another address buys every 250 ms, and buyers on this machine buy too.
    const phone = inNamespace<{ latencies: number[]; statuses: number[] }>(`
      const from = ${JSON.stringify(NS_ADDR_2)};
      const joined = await call("POST", "/api/workshop/join", { from, body: { name: "Honest" } });
      const cookie = cookieOf(joined);
      const latencies = [], statuses = [];
      for (let i = 0; i < 24; i++) {
        const t0 = Date.now();
        const answer = await call("POST", "/api/buy", { from, cookie, body: { buyer: "h" } });
        latencies.push(Date.now() - t0); statuses.push(answer.status);
        await new Promise((r) => setTimeout(r, 250));
      }
      console.log(JSON.stringify({ latencies, statuses }));
    `, store);
    const local: number[] = [];
    for (let round = 0; round < 30; round++) {
      await Promise.all(Array.from({ length: 10 }, async (_, i) => {
        const t0 = Date.now();
        const response = await fetch(`${PUBLIC_URL}/api/buy`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ buyer: `calm-${round}-${i}` }) });
        expect(response.status).toBe(201);
        local.push(Date.now() - t0);
      }));
    }
    const [flood, honestPhone] = await Promise.all([flooding, phone]);
    const p99 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.ceil(values.length * 0.99) - 1] ?? Infinity;
    console.log(`stream flood ${JSON.stringify(flood.statuses)}; phone p99 ${p99(honestPhone.latencies)} ms; this machine p99 ${p99(local)} ms`);
    expect(Object.values(flood.statuses).reduce((a, b) => a + b, 0)).toBe(500);
    // nginx turned most of the loop away itself.
    expect(flood.statuses["429"] ?? 0).toBeGreaterThan(400);
    expect(honestPhone.statuses.every((status) => status === 201)).toBe(true);
    expect(p99(honestPhone.latencies)).toBeLessThan(1000);
    expect(p99(local)).toBeLessThan(1000);
    expect(honest(await settledSale())).toEqual(HONEST);
  });
});

/**
 * The class behind one address (a venue's NAT, a proxy, Docker Desktop's port mapping): thirty
 * phones whose requests all arrive from the namespace's one address, each with its own cookie jar.
 * And the student with a laptop of thirty addresses: the binding of a person to the address they
 * joined from is what stops them spending thirty people's turns from one.
 */
describe("thirty phones, one address; one laptop, thirty addresses", () => {
  let admin: string;
  let store: string;
  // 30 more addresses for the laptop, routed to the namespace (the /29 above has room for six).
  const LAPTOP_NET = `10.232.${(process.pid % 250) + 1}`;
  const LAPTOP = Array.from({ length: 30 }, (_, i) => `${LAPTOP_NET}.${i + 10}`);
  beforeAll(async () => {
    admin = await signIn();
    await stackControl("/nginx/expose/lan");
    store = `http://${HOST_ADDR}:${new URL(PUBLIC_URL).port}`;
    for (const address of LAPTOP) sh("ip", ["netns", "exec", NS, "ip", "addr", "add", `${address}/32`, "dev", NS_IF]);
    sh("ip", ["route", "add", `${LAPTOP_NET}.0/24`, "dev", HOST_IF]);
  });
  afterAll(async () => {
    await adminFetch(admin, "PUT", "/api/admin/room", { peoplePerAddress: 1 });
    // The people these tests made leave the room, whatever failed: the next run's projector lists none of them.
    for (const address of [NS_ADDR, ...LAPTOP]) await forgetAddress(address);
    try {
      sh("ip", ["route", "del", `${LAPTOP_NET}.0/24`, "dev", HOST_IF]);
    } catch {
      // gone with the link
    }
  });

  it("with thirty people per address, thirty phones behind one join as thirty people, and a one-per-buyer drop of 10 goes to 10 of them", async () => {
    const room = await adminFetch(admin, "PUT", "/api/admin/room", { peoplePerAddress: 30 });
    expect(room.status).toBe(200);
    // The projector's setting sized nginx's per-address ceilings too (through the stack runner).
    expect((room.json.room as { sizedFor: number }).sizedFor).toBe(30);
    await forgetAddress(NS_ADDR);
    const drop = await adminFetch(admin, "POST", "/api/admin/drop", { stock: 10, countdownS: 0, onePerBuyer: true, strategy: "token-lua", workMs: 5 });
    expect(drop.status, drop.text).toBe(201);
    const saleId = (drop.json.sale as { id: number }).id;
    const classroom = await inNamespace<{ joins: number[]; buyers: string[]; taps: { status: number; code?: string; buyer?: string }[] }>(`
      const from = ${JSON.stringify(NS_ADDR)};
      // Thirty phones join at once, each with its own name (and so its own cookie jar).
      const joined = await Promise.all(Array.from({ length: 30 }, (_, i) => call("POST", "/api/workshop/join", { from, body: { name: "Phone " + i } })));
      const cookies = joined.map(cookieOf);
      // The drop is open: every phone taps Buy twice, all at once.
      const taps = await Promise.all(cookies.flatMap((cookie) => [0, 1].map(async () => {
        const answer = await call("POST", "/api/buy", { from, cookie, body: { buyer: "ignored" } });
        return { status: answer.status, code: answer.json.code, buyer: answer.json.order && answer.json.order.buyer };
      })));
      console.log(JSON.stringify({ joins: joined.map((j) => j.status), buyers: joined.map((j) => j.json.buyer), taps }));
    `, store);
    expect(classroom.joins.every((status) => status === 201), JSON.stringify(classroom.joins)).toBe(true);
    expect(new Set(classroom.buyers).size).toBe(30);
    // nginx counted thirty people, not one phone: no tap was turned away by a limit.
    expect(classroom.taps.filter((tap) => tap.status === 429), JSON.stringify(classroom.taps)).toEqual([]);
    const bought = classroom.taps.filter((tap) => tap.status === 201);
    expect(bought).toHaveLength(10);
    expect(new Set(bought.map((tap) => tap.buyer)).size).toBe(10);
    for (const tap of classroom.taps.filter((tap) => tap.status !== 201)) expect(["sold_out", "one_per_buyer", "busy"], JSON.stringify(tap)).toContain(tap.code);
    const checked = await settledSale();
    expect(checked.saleId).toBe(saleId);
    expect(checked.orders).toBe(10);
    expect(honest(checked)).toEqual(HONEST);
    await forgetAddress(NS_ADDR);
  });

  it("a laptop that joined from thirty addresses gets at most one unit buying with every cookie from one of them", async () => {
    expect((await adminFetch(admin, "PUT", "/api/admin/room", { peoplePerAddress: 1 })).status).toBe(200);
    for (const address of LAPTOP) await forgetAddress(address);
    const drop = await adminFetch(admin, "POST", "/api/admin/drop", { stock: 10, countdownS: 0, onePerBuyer: true, strategy: "token-lua", workMs: 1 });
    expect(drop.status, drop.text).toBe(201);
    const laptop = await inNamespace<{ joins: number[]; buys: { status: number; code?: string }[] }>(`
      const addresses = ${JSON.stringify(LAPTOP)};
      const joined = [];
      for (const from of addresses) joined.push(await call("POST", "/api/workshop/join", { from, body: { name: "Me " + from.split(".").pop() } }));
      const cookies = joined.map(cookieOf);
      const buys = [];
      for (const cookie of cookies) {
        const answer = await call("POST", "/api/buy", { from: addresses[0], cookie, body: { buyer: "x" } });
        buys.push({ status: answer.status, code: answer.json.code });
      }
      console.log(JSON.stringify({ joins: joined.map((j) => j.status), buys }));
    `, store);
    expect(laptop.joins.filter((status) => status === 201)).toHaveLength(30);
    expect(laptop.buys.filter((answer) => answer.status === 201)).toHaveLength(1);
    // Refused by the app for the address (or, past the address's ceiling, by nginx): never sold.
    expect(laptop.buys.filter((answer) => answer.code === "joined_elsewhere").length).toBeGreaterThanOrEqual(15);
    expect(laptop.buys.every((answer) => answer.status === 201 || answer.code === "joined_elsewhere" || answer.status === 429), JSON.stringify(laptop.buys)).toBe(true);
    const checked = await settledSale();
    expect(checked.orders).toBe(1);
    expect(honest(checked)).toEqual(HONEST);
    for (const address of LAPTOP) await forgetAddress(address);
  });
});
