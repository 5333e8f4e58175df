#!/usr/bin/env node
// npm run test:container: the lab image, built with Podman from this clone, run and checked from the
// outside as an instructor's laptop sees it (only Node's builtins here: nothing from node_modules).
//
//  1. installs what it needs when missing (podman, runc, mmdebstrap, podman-compose: Debian's), and
//     makes the Dockerfile's base image when missing (mmdebstrap from Debian's mirror, podman import
//     under the name the Dockerfile's FROM uses);
//  2. builds the image (the README's `docker build -t lock-lab .`), and checks it is lean;
//  3. runs it as the README says (`-p …:3000 --cap-add NET_ADMIN`, JOIN_URL given) and, through the
//     published port only: the store and the admin pages answer, the password the container printed
//     signs in, the projector shows JOIN_URL; a 50-unit sale to 200 buyers under token-lua sells
//     exactly 50 and under none sells units twice, each sale counted by this file's own checker
//     (Postgres and Redis read inside the container with psql and redis-cli, never the app's
//     figures); one lab card of each fault kind (kill, clock jump, link cut, failover) shows its
//     pitfall and its fix; thirty phones behind the one address podman gives every client of the
//     published port are thirty people; `podman stop` ends every process in order and leaves none;
//  4. runs it without NET_ADMIN: the link grid says why, and a card still plays;
//  5. runs docker-compose.yml (podman-compose) twice over its volume: the lab answers, and the
//     password generated on the first start is the one the second prints.
//
// Ports on this machine: CONTAINER_TEST_PORT (13000) and the two after it, on 127.0.0.1 only; the
// native stack's ports (3000…, 7001…) stay free for whoever runs it here. CONTAINER_TEST_CARDS=all
// plays every card of the lab's ladder, not only one of each fault kind.

import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const PORT = Number(process.env.CONTAINER_TEST_PORT ?? 13000);
const IMAGE = "lock-lab";
const RUN = `locklab-test-${process.pid}`;
const NO_CAP = `${RUN}-nocap`;
const COMPOSE_PROJECT = `locklabtest${process.pid}`;
const WORK = fs.mkdtempSync(path.join(os.tmpdir(), "locklab-container-test-"));
// Podman's settings for this machine (why: the file's own comments), the machine's left as they are.
process.env.CONTAINERS_CONF = path.join(ROOT, "tests", "container", "containers.conf");

const t0 = Date.now();
const secs = (since) => `${((Date.now() - since) / 1000).toFixed(1)} s`;
const say = (line) => console.log(line);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

class Failure extends Error {}
function assert(condition, message) {
  if (!condition) throw new Failure(message);
}

// ---------------------------------------------------------------------------------------------
// results

const results = [];
async function check(name, fn) {
  const started = Date.now();
  say(`\n… ${name}`);
  try {
    const note = await fn();
    results.push({ name, status: "pass", time: secs(started), note });
    say(`✓ ${name} (${secs(started)})${note ? `: ${note}` : ""}`);
    return true;
  } catch (err) {
    const message = err instanceof Failure ? err.message : (err?.stack ?? String(err));
    results.push({ name, status: "FAIL", time: secs(started), note: message });
    say(`✗ ${name} (${secs(started)}): ${message}`);
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// commands

function run(command, args, { input, timeoutMs = 120_000, allowFail = false, env } = {}) {
  const result = spawnSync(command, args, { encoding: "utf8", input, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, env: env ?? process.env });
  if (!allowFail && (result.error || result.status !== 0)) {
    throw new Failure(`${command} ${args.join(" ")} failed (${result.error?.message ?? `exit ${result.status}`}): ${(result.stderr || result.stdout || "").trim().slice(-2000)}`);
  }
  return result;
}
const podman = (args, options) => run("podman", args, options);

/** A long command with its output in a log file; rejects with the log's tail. */
function runLogged(command, args, logFile, { env } = {}) {
  return new Promise((resolve, reject) => {
    const out = fs.openSync(logFile, "w");
    const child = spawn(command, args, { stdio: ["ignore", out, out], env: env ?? process.env, cwd: ROOT });
    child.once("error", (err) => reject(new Failure(`${command}: ${err.message}`)));
    child.once("exit", (code) => {
      fs.closeSync(out);
      if (code === 0) resolve();
      else reject(new Failure(`${command} ${args.slice(0, 2).join(" ")}… exited ${code}; ${logFile} ends:\n${fs.readFileSync(logFile, "utf8").split("\n").slice(-25).join("\n")}`));
    });
  });
}

const onPath = (bin) => spawnSync("sh", ["-c", `command -v ${bin}`]).status === 0;

function aptInstall(packages) {
  if (packages.length === 0) return;
  if (process.getuid?.() !== 0) throw new Failure(`missing ${packages.join(", ")}; as root: apt-get install -y ${packages.join(" ")}`);
  say(`… apt-get install ${packages.join(" ")}`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  run("apt-get", ["update"], { env, timeoutMs: 300_000 });
  run("apt-get", ["install", "-y", "--no-install-recommends", ...packages], { env, timeoutMs: 900_000 });
}

// ---------------------------------------------------------------------------------------------
// HTTP through the published port

async function http(port, method, urlPath, { cookie, body, timeoutMs = 30_000 } = {}) {
  const response = await fetch(`http://127.0.0.1:${port}${urlPath}`, {
    method,
    headers: { ...(cookie ? { cookie } : {}), ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    redirect: "manual",
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

async function signIn(port, password) {
  const answer = await http(port, "POST", "/api/admin/session", { body: { password } });
  assert(answer.status === 200, `sign-in with the printed password answered ${answer.status}: ${answer.text.slice(0, 300)}`);
  const cookie = answer.headers.getSetCookie().find((c) => c.startsWith("locklab_admin="));
  assert(cookie, "sign-in set no locklab_admin cookie");
  return cookie.split(";")[0];
}

// ---------------------------------------------------------------------------------------------
// the container

function logsOf(name) {
  const r = podman(["logs", name], { allowFail: true });
  return `${r.stdout ?? ""}${r.stderr ?? ""}`;
}

/** Starts the image and waits until it has printed its banner; resolves with the admin password it printed. */
async function startLab(name, port, extraArgs) {
  podman(["run", "-d", "--name", name, "-p", `127.0.0.1:${port}:3000`, ...extraArgs, IMAGE]);
  return waitForBanner(() => logsOf(name), `container ${name}`);
}

async function waitForBanner(readLogs, what, timeoutMs = 300_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const logs = readLogs();
    const password = /admin\s+http:\S+\s+\(password: ([^,)\s]+)/.exec(logs)?.[1];
    if (password) return { password, logs };
    if (/^✗ /m.test(logs)) throw new Failure(`${what} did not start:\n${logs.slice(-3000)}`);
    if (Date.now() > deadline) throw new Failure(`${what} printed no banner within ${timeoutMs / 1000} s:\n${logs.slice(-3000)}`);
    await sleep(2000);
  }
}

/** Every process of a running container, as host pids (the container's own pid namespace). */
function containerProcesses(name) {
  const pid = podman(["inspect", "--format", "{{.State.Pid}}", name]).stdout.trim();
  const ns = fs.readlinkSync(`/proc/${pid}/ns/pid`);
  return processesInNamespace(ns).map((p) => ({ ...p, ns }));
}
function processesInNamespace(ns) {
  const found = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readlinkSync(`/proc/${entry}/ns/pid`) !== ns) continue;
      const comm = fs.readFileSync(`/proc/${entry}/comm`, "utf8").trim();
      found.push({ pid: Number(entry), comm });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// the checker: Postgres and Redis read inside the container, never the app's API or its accounting

function makeChecker(name) {
  const redis = (...args) => podman(["exec", name, "redis-cli", "-h", "127.0.0.1", "-p", "7001", ...args.map(String)]).stdout.replace(/\n$/, "");
  const sql = (query) => podman(["exec", name, "psql", "-h", "127.0.0.1", "-p", "55432", "-U", "locklab", "-d", "locklab", "-At", "-F", "|", "-c", query]).stdout.trim();
  const int = (value, what) => {
    const n = Number(value);
    if (!Number.isInteger(n)) throw new Failure(`${what}: ${JSON.stringify(value)} is not an integer`);
    return n;
  };
  /** One sale counted per unit (as tests/support/accounting.ts counts it): orders, sold twice, lost, phantom. */
  function checkSale(saleId) {
    const id = int(saleId, "sale id");
    const current = int(redis("HGET", "locklab:sale", "id"), "current sale");
    const stock = id === current ? redis("GET", "goods:001") : sql(`SELECT final_stock FROM sales WHERE id = ${id}`);
    const remaining = int(stock === "" ? 0 : stock, `sale ${id}'s stock`);
    const pendingRaw = redis("HVALS", `locklab:sale:${id}:pending`);
    const pending = pendingRaw ? pendingRaw.split("\n").map((line) => int(JSON.parse(line).unit, "pending unit")) : [];
    const row = sql(`WITH sale AS (SELECT initial_stock FROM sales WHERE id = ${id}),
        sold AS (SELECT stock_seen AS unit, count(*) AS n FROM orders WHERE sale_id = ${id} AND status = 'sold' GROUP BY stock_seen),
        shelf AS (SELECT LEAST(GREATEST(${remaining}, 0), initial_stock) AS top FROM sale)
      SELECT sale.initial_stock,
        (SELECT coalesce(sum(n), 0) FROM sold),
        (SELECT count(*) FROM sold WHERE unit BETWEEN 1 AND sale.initial_stock),
        (SELECT count(*) FROM generate_series((SELECT top FROM shelf) + 1, sale.initial_stock) AS u
          WHERE u NOT IN (SELECT unit FROM sold) AND u <> ALL(ARRAY[${pending.join(",")}]::int[])),
        (SELECT count(*) FROM sold WHERE unit BETWEEN 1 AND (SELECT top FROM shelf)) + GREATEST(${remaining} - sale.initial_stock, 0)
      FROM sale`);
    assert(row, `no sale ${id} in Postgres`);
    const [initialStock, orders, distinct, lost, phantom] = row.split("|").map((v) => int(v, `sale ${id}'s counts`));
    const peak = int(redis("GET", `locklab:sale:${id}:peak`) || 0, "peak holders");
    const staleRefused = int(redis("GET", `locklab:sale:${id}:stale-refused`) || 0, "stale writes refused");
    return { saleId: id, initialStock, orders, doubleSold: orders - distinct, lostUnits: lost, phantomUnits: phantom, remaining, pendingUnits: pending.length, oversell: orders - initialStock, peak, staleRefused };
  }
  /** Waits (bounded) until the reconciler has settled every reservation of the sale. */
  async function settledSale(saleId, timeoutMs = 30_000) {
    const deadline = Date.now() + timeoutMs;
    let checked = checkSale(saleId);
    while (checked.pendingUnits > 0 && Date.now() < deadline) {
      await sleep(500);
      checked = checkSale(saleId);
    }
    return checked;
  }
  return { checkSale, settledSale, redis, sql };
}

// ---------------------------------------------------------------------------------------------
// a sale through the admin API (the dashboard's Run button: the built-in driver inside the container)

async function sale(port, cookie, checker, strategy) {
  const started = await http(port, "POST", "/api/admin/runs", {
    cookie,
    body: { strategy, initialStock: 50, tool: "node", vus: 200, totalRequests: 200, waitTimeoutMs: 20_000, start: true },
  });
  assert(started.status === 201, `POST /api/admin/runs answered ${started.status}: ${started.text.slice(0, 300)}`);
  const { id, saleId } = started.json.run;
  const deadline = Date.now() + 180_000;
  let run;
  while (Date.now() < deadline) {
    run = (await http(port, "GET", `/api/admin/runs/${id}`, { cookie })).json?.run;
    if (run && run.status !== "running") break;
    await sleep(1000);
  }
  assert(run?.status === "completed", `run ${id} ended ${run?.status ?? "never"}: ${JSON.stringify(run).slice(0, 500)}`);
  assert(run.requests === 200, `the driver sent ${run.requests} purchases, not 200 (one per buyer)`);
  return { run, checked: await checker.settledSale(saleId) };
}

// ---------------------------------------------------------------------------------------------
// lab cards through the admin API, each case judged by the checker (as tests/lab/scenarios.test.ts)

const ALL_PITFALLS = ["oversell", "double-sold", "lost-stock", "deadlock", "two-holders"];

async function playCard(port, cookie, cardId) {
  const started = await http(port, "POST", `/api/admin/lab/scenarios/${encodeURIComponent(cardId)}/run`, { cookie });
  assert(started.status === 202, `POST …/scenarios/${cardId}/run answered ${started.status}: ${started.text.slice(0, 300)}`);
  const labRunId = started.json.labRun.id;
  const deadline = Date.now() + 300_000;
  while (Date.now() < deadline) {
    // A case may kill or freeze the instance that answers a poll: such a poll is asked again.
    const polled = await http(port, "GET", `/api/admin/lab/runs/${labRunId}`, { cookie }).catch(() => undefined);
    const labRun = polled?.status === 200 ? polled.json?.labRun : undefined;
    if (labRun && labRun.status !== "running") return labRun;
    await sleep(1000);
  }
  throw new Failure(`lab run ${labRunId} (card ${cardId}) did not finish within 300 s`);
}

function judgeCase(checker, entry, labCase) {
  assert(entry.status === "done" && entry.outcome && entry.saleId !== undefined,
    `${entry.id}: not played (${entry.status}): ${entry.error ?? "no outcome"} — a fault step that fails (a kill, a cut, a clock that does not move, a failover that does not come) ends its case so`);
  const checked = checker.checkSale(entry.saleId);
  const seen = [];
  if (checked.oversell > 0) seen.push("oversell");
  if (checked.doubleSold > 0) seen.push("double-sold");
  if (checked.lostUnits > 0) seen.push("lost-stock");
  if (checked.peak > 1) seen.push("two-holders");
  // A deadlock is a stall, not a count: the server saw buyers turned away, the checker that stock was left for them.
  if (entry.outcome.observed.includes("deadlock") && checked.remaining > 0) seen.push("deadlock");
  const watched = labCase.watch ?? ALL_PITFALLS;
  const appeared = seen.some((p) => watched.includes(p));
  const honest = checked.doubleSold === 0 && checked.lostUnits === 0 && checked.phantomUnits === 0 && checked.pendingUnits === 0;
  const asExpected = labCase.expect === "pitfall" ? appeared : !appeared && honest && entry.outcome.asExpected;
  return { asExpected, seen, checked, why: `checker ${JSON.stringify({ ...checked, seen })}; server ${JSON.stringify({ observed: entry.outcome.observed, asExpected: entry.outcome.asExpected, bought: entry.outcome.bought, staleRefused: entry.outcome.staleRefused })}` };
}

/**
 * Plays a card; a pitfall is timing and may miss a play (the lab suite asks 19 of 20 natively), so a
 * card whose pitfall did not show is played once more. Every fix must hold in every play.
 */
async function cardShowsPitfallAndFix(port, cookie, checker, cards, cardId, evidence) {
  const card = cards.find((c) => String(c.id) === cardId);
  assert(card, `no lab card ${cardId} in GET /api/admin/lab`);
  const pitfallsSeen = new Map(card.cases.filter((c) => c.expect === "pitfall").map((c) => [c.id, false]));
  const notes = [];
  for (let play = 1; play <= 2; play++) {
    const before = evidence?.before();
    const labRun = await playCard(port, cookie, cardId);
    assert(labRun.status === "completed", `card ${cardId} ended ${labRun.status}: ${labRun.error ?? ""}`);
    evidence?.after(before);
    for (const entry of labRun.cases) {
      const labCase = card.cases.find((c) => c.id === entry.id);
      const judged = judgeCase(checker, entry, labCase);
      notes.push(`play ${play} ${entry.id} (${labCase.expect}): ${judged.asExpected ? "as the card says" : "NOT as the card says"} — ${judged.why}`);
      if (labCase.expect === "fix") {
        assert(judged.asExpected, `${cardId}/${entry.id}: the fix did not hold:\n${notes.join("\n")}`);
        if (labCase.require?.staleRefused) {
          assert(judged.checked.staleRefused > 0, `${cardId}/${entry.id}: the store refused no stale write (Redis' count), so the fault never reached the fence`);
        }
      } else if (judged.asExpected) pitfallsSeen.set(entry.id, true);
    }
    if ([...pitfallsSeen.values()].every(Boolean)) break;
  }
  const missing = [...pitfallsSeen].filter(([, seen]) => !seen).map(([id]) => id);
  assert(missing.length === 0, `${cardId}: the pitfall of ${missing.join(", ")} did not show in 2 plays:\n${notes.join("\n")}`);
  return notes.filter((n) => n.includes("play")).map((n) => n.split(" — ")[0]).join("; ");
}

// ---------------------------------------------------------------------------------------------
// the steps

async function prepareMachine() {
  if (process.platform !== "linux") throw new Failure("the container test runs Podman on Linux");
  const missing = [["podman", "podman"], ["runc", "runc"], ["podman-compose", "podman-compose"]].filter(([bin]) => !onPath(bin)).map(([, pkg]) => pkg);
  aptInstall(missing);
  return podman(["--version"]).stdout.trim();
}

function baseImage() {
  const m = /^ARG BASE=(\S+)$/m.exec(fs.readFileSync(path.join(ROOT, "Dockerfile"), "utf8"));
  if (!m) throw new Failure("the Dockerfile names no ARG BASE=<image>");
  return m[1];
}

function ensureBase(base) {
  if (podman(["image", "exists", base], { allowFail: true }).status === 0) return `${base} already here`;
  // debian:trixie-slim → trixie; made from Debian's own mirror, as no image registry is reachable here.
  const suite = /debian:([a-z]+)(?:-slim)?$/.exec(base)?.[1];
  if (!suite) throw new Failure(`cannot make ${base} with mmdebstrap: not a debian:<suite>[-slim] image`);
  if (!onPath("mmdebstrap")) aptInstall(["mmdebstrap"]);
  const tar = path.join(WORK, `${suite}.tar`);
  const started = Date.now();
  run("mmdebstrap", ["--variant=minbase", suite, tar], { timeoutMs: 900_000 });
  podman(["import", tar, base], { timeoutMs: 300_000 });
  fs.rmSync(tar, { force: true });
  return `${base} made from Debian's mirror (mmdebstrap --variant=minbase ${suite}, podman import) in ${secs(started)}`;
}

async function build() {
  const args = ["build", "-t", IMAGE];
  // npm inside the build trusts what this machine trusts (a TLS-inspecting proxy's CA): mounted into
  // that one step, never copied into the image.
  const bundle = "/etc/ssl/certs/ca-certificates.crt";
  if (fs.existsSync(bundle)) args.push("--volume", `${bundle}:/run/ca.crt:ro`, "--build-arg", "NPM_CA=/run/ca.crt");
  const log = path.join(WORK, "build.log");
  const started = Date.now();
  await runLogged("podman", [...args, ROOT], log);
  return secs(started);
}

function imageIsLean() {
  const size = Number(podman(["image", "inspect", "--format", "{{.Size}}", IMAGE]).stdout.trim());
  const probe = podman(["run", "--rm", "--entrypoint", "sh", IMAGE, "-c", [
    "for c in gcc cc c++ g++ clang make; do command -v $c; done",
    "find /var/lib/apt/lists -type f ! -name lock | head -3",
    "ls -d /root/.npm /root/.cache /app/.next/cache /app/node_modules/.cache /app/node_modules/@next/swc-* /app/node_modules/vitest /app/node_modules/eslint /usr/share/doc/*/README* /usr/share/man/man1 2>/dev/null",
    "true",
  ].join("; ")]).stdout.trim();
  assert(probe === "", `the image carries what only a build needs (a compiler, apt lists, caches, dev packages, docs):\n${probe}`);
  // A ceiling that catches a heavy addition (a desktop Java pulled in by Debian's `zookeeper` was 300 MB).
  const mb = Math.round(size / 1e6);
  assert(mb < 1700, `the image is ${mb} MB (more than the 1,700 MB this test allows)`);
  return `${mb} MB; no compiler, apt lists, npm or Next caches, dev packages or docs`;
}

async function main() {
  say(`Lock Lab in one container: build, run and check with Podman (work files in ${WORK})`);
  let stackUp = false;
  const cleanup = () => {
    for (const name of [RUN, NO_CAP]) podman(["rm", "-f", "-t", "5", name], { allowFail: true, timeoutMs: 60_000 });
  };
  for (const sig of ["SIGINT", "SIGTERM"]) {
    process.once(sig, () => {
      cleanup();
      process.exit(130);
    });
  }
  try {
    if (!(await check("the machine has podman, runc and podman-compose (Debian's)", prepareMachine))) return;
    const base = baseImage();
    if (!(await check(`the Dockerfile's base image ${base} is here`, () => ensureBase(base)))) return;
    if (!(await check("podman build -t lock-lab . (from this clone)", build))) return;
    await check("the image is lean", imageIsLean);

    // ------ the lab as the README runs it, with NET_ADMIN and a JOIN_URL
    const joinUrl = `http://192.0.2.10:${PORT}`;
    let password;
    stackUp = await check(`podman run -p 127.0.0.1:${PORT}:3000 --cap-add NET_ADMIN -e JOIN_URL=${joinUrl} lock-lab: the lab starts and prints its admin password`, async () => {
      const started = Date.now();
      ({ password } = await startLab(RUN, PORT, ["--cap-add", "NET_ADMIN", "-e", `JOIN_URL=${joinUrl}`]));
      return `banner after ${secs(started)}`;
    });
    if (!stackUp) return;
    const checker = makeChecker(RUN);
    let cookie;
    let cards = [];

    await check("the store answers through the published port", async () => {
      const page = await http(PORT, "GET", "/");
      assert(page.status === 200, `GET / answered ${page.status}`);
      assert(page.text.includes("goods:001"), "the store page does not show goods:001");
      const sale = await http(PORT, "GET", "/api/sale");
      assert(sale.status === 200 && typeof sale.json?.remaining === "number", `GET /api/sale answered ${sale.status}: ${sale.text.slice(0, 200)}`);
      return `GET / 200; GET /api/sale 200, ${sale.json.remaining} of ${sale.json.initialStock} left`;
    });

    const adminOk = await check("the admin answers through the published port, to the password the container printed", async () => {
      const refused = await http(PORT, "POST", "/api/admin/session", { body: { password: `${password}-wrong` } });
      assert(refused.status === 401, `a wrong password answered ${refused.status}`);
      const anonymous = await http(PORT, "GET", "/api/admin/lab");
      assert(anonymous.status === 401, `the admin API without a session answered ${anonymous.status}`);
      cookie = await signIn(PORT, password);
      const lab = await http(PORT, "GET", "/api/admin/lab", { cookie });
      assert(lab.status === 200 && Array.isArray(lab.json?.scenarios), `GET /api/admin/lab answered ${lab.status}`);
      cards = lab.json.scenarios;
      assert(lab.json.faults?.network?.available === true, `links cannot be cut with NET_ADMIN: ${JSON.stringify(lab.json.faults?.network).slice(0, 300)}`);
      const dashboard = await http(PORT, "GET", "/admin", { cookie });
      assert(dashboard.status === 200, `GET /admin answered ${dashboard.status}`);
      return `${cards.length} lab cards; the link grid can cut links`;
    });
    if (!adminOk) return;

    await check("the projector gives phones JOIN_URL (its QR code and join line)", async () => {
      const page = await http(PORT, "GET", "/admin/live", { cookie });
      assert(page.status === 200, `GET /admin/live answered ${page.status}`);
      const list = /data-testid="join-urls"[^>]*>(.*?)<\/ul>/s.exec(page.text)?.[1] ?? "";
      assert(list.includes(joinUrl), `the join addresses do not list ${joinUrl}: ${list.slice(0, 300)}`);
      assert(!/http:\/\/10\.|http:\/\/172\./.test(list), `the join addresses still list the container's own: ${list}`);
      return joinUrl;
    });

    await check("a 50-unit sale to 200 buyers under token-lua sells exactly 50 (the checker: 0 sold twice, 0 lost)", async () => {
      const { run: r, checked } = await sale(PORT, cookie, checker, "token-lua");
      assert(checked.orders === 50 && checked.remaining === 0, `sold ${checked.orders} with ${checked.remaining} left: ${JSON.stringify(checked)}`);
      assert(checked.doubleSold === 0 && checked.lostUnits === 0 && checked.phantomUnits === 0 && checked.pendingUnits === 0 && checked.oversell === 0,
        `not honest: ${JSON.stringify(checked)}`);
      return `${r.requests} buyers: ${checked.orders} sold, ${checked.doubleSold} twice, ${checked.lostUnits} lost (driver: ${r.bought} bought, ${r.soldOut} sold out, ${r.busy} busy)`;
    });

    await check("the same sale under none sells units twice (the checker)", async () => {
      const { run: r, checked } = await sale(PORT, cookie, checker, "none");
      assert(checked.doubleSold > 0, `nothing sold twice without a lock: ${JSON.stringify(checked)}`);
      return `${r.requests} buyers: ${checked.orders} orders for ${checked.initialStock} units, ${checked.doubleSold} sold twice`;
    });

    // A kill: app-1 is killed holding the lock. The checker sees the stall; app-1's process really changed.
    const app1Pid = () => Number(JSON.parse(podman(["exec", RUN, "cat", "/app/.stack/pids/app-1.json"]).stdout).pid);
    await check("lab card 3 (a kill: the holder's instance is killed): SETNX without expiry stalls, with an expiry it sells", () =>
      cardShowsPitfallAndFix(PORT, cookie, checker, cards, "3", {
        before: () => app1Pid(),
        after: (pid) => {
          const alive = podman(["exec", RUN, "sh", "-c", `test -d /proc/${pid} && echo alive || echo gone`]).stdout.trim();
          assert(alive === "gone" && app1Pid() !== pid, `app-1 (pid ${pid}) was not killed and restarted`);
        },
      }));

    await check("lab card 10 (a clock jump: libfaketime moves Redis node 3's clock 10 s): a bare majority sells twice, a full one holds", () =>
      cardShowsPitfallAndFix(PORT, cookie, checker, cards, "10"));

    await check("lab card write-in-flight (a link cut: nft drops app-1's packets to Redis node 1): token-lua sells twice, token-fencing refuses the late write", () =>
      cardShowsPitfallAndFix(PORT, cookie, checker, cards, "write-in-flight"));

    // A failover: the Sentinel-managed primary is killed and its replica promoted. Its run id changes.
    const runIds = () => ["7101", "7102"].map((p) => /run_id:(\w+)/.exec(podman(["exec", RUN, "redis-cli", "-p", p, "INFO", "server"]).stdout)?.[1]);
    await check("lab card failover (the Sentinels promote the replica): sentinel sells twice, sentinel-wait and redlock hold", () =>
      cardShowsPitfallAndFix(PORT, cookie, checker, cards, "failover", {
        before: () => runIds(),
        after: (before) => {
          const after = runIds();
          assert(after.some((id, i) => id !== before[i]), `no Sentinel-managed member was killed and restarted (run ids ${before} → ${after})`);
        },
      }));

    // CONTAINER_TEST_CARDS=all: every other card of the ladder too, once each (about 15 minutes more).
    if (process.env.CONTAINER_TEST_CARDS === "all") {
      for (const card of cards.filter((c) => !["3", "10", "write-in-flight", "failover"].includes(String(c.id)))) {
        await check(`lab card ${card.id} (${card.title})`, () => cardShowsPitfallAndFix(PORT, cookie, checker, cards, String(card.id)));
      }
    }

    await check("30 phones behind one address (podman's gateway) are 30 people: a one-per-buyer drop of 10 goes to 10 of them, none limited",
      () => thirtyPhonesBehindOneAddress(PORT, cookie, checker));

    await check("podman stop: the stack stops every process in order, and none is left", async () => {
      const before = containerProcesses(RUN);
      assert(before.length >= 25, `only ${before.length} processes ran in the container: ${before.map((p) => p.comm).join(", ")}`);
      const names = new Set(before.map((p) => p.comm));
      for (const expected of ["redis-server", "postgres", "pgbouncer", "nginx", "java", "etcd", "tini"]) assert(names.has(expected), `no ${expected} ran in the container`);
      const started = Date.now();
      podman(["stop", "-t", "60", RUN], { timeoutMs: 90_000 });
      const tookS = (Date.now() - started) / 1000;
      const exit = podman(["inspect", "--format", "{{.State.ExitCode}}", RUN]).stdout.trim();
      const logs = logsOf(RUN);
      assert(exit === "143", `the container exited ${exit}, not 143 (the stack's own exit after SIGTERM): killed, or failed:\n${logs.slice(-1500)}`);
      assert(/✓ stack stopped \(\d+ ms\), no process left/.test(logs), `the stack did not say it stopped with no process left:\n${logs.slice(-1500)}`);
      assert(!/killed leftover processes/.test(logs), "the stack had to kill leftover processes");
      // Docker's and podman's default grace is 10 s, then SIGKILL: the stack must be done well before.
      assert(tookS < 10, `podman stop took ${tookS.toFixed(1)} s: past Docker's default 10 s the servers are killed, not stopped`);
      const left = before.filter((p) => fs.existsSync(`/proc/${p.pid}`) && (() => { try { return fs.readlinkSync(`/proc/${p.pid}/ns/pid`) === p.ns; } catch { return false; } })());
      assert(left.length === 0, `processes left after stop: ${left.map((p) => `${p.comm} (${p.pid})`).join(", ")}`);
      assert(processesInNamespace(before[0].ns).length === 0, "a process is still in the container's pid namespace");
      return `${before.length} processes (${[...names].sort().join(", ")}), stopped in ${tookS.toFixed(1)} s, exit 143, none left`;
    });
    podman(["rm", "-f", RUN], { allowFail: true });

    // ------ without NET_ADMIN
    await check("without NET_ADMIN: the link grid says why, and a card still plays", async () => {
      const port = PORT + 1;
      const started = Date.now();
      const { password: pw, logs } = await startLab(NO_CAP, port, []);
      assert(/network faults: off — [^\n]*NET_ADMIN/.test(logs), `the banner does not say the network faults are off for want of NET_ADMIN:\n${logs.slice(-1500)}`);
      const c = await signIn(port, pw);
      const lab = await http(port, "GET", "/api/admin/lab", { cookie: c });
      const network = lab.json?.faults?.network;
      assert(network?.available === false && /NET_ADMIN/.test(network.reason ?? ""), `the admin API's network status: ${JSON.stringify(network)}`);
      const page = await http(port, "GET", "/admin/lab", { cookie: c });
      const grid = /data-testid="link-grid-unavailable"[^>]*>(.*?)<\/p>/s.exec(page.text)?.[1] ?? "";
      assert(/NET_ADMIN/.test(grid), `the lab page's link grid does not say why: ${grid || "(no link-grid-unavailable)"}`);
      const cut = await http(port, "POST", "/api/admin/faults", { cookie: c, body: { action: "grudge", cuts: [{ client: "app-1", server: "redis-1" }] } });
      assert(cut.status === 503 && /network_unavailable/.test(cut.text), `a cut without NET_ADMIN answered ${cut.status}: ${cut.text.slice(0, 300)}`);
      const noCapChecker = makeChecker(NO_CAP);
      const notes = await cardShowsPitfallAndFix(port, c, noCapChecker, lab.json.scenarios, "1");
      podman(["stop", "-t", "60", NO_CAP], { timeoutMs: 90_000 });
      return `"${grid.replace(/<[^>]+>/g, "").slice(0, 160)}"; a cut answers ${cut.status} ${cut.json?.code}: "${cut.json?.message}"; card 1: ${notes} (${secs(started)})`;
    });
    podman(["rm", "-f", NO_CAP], { allowFail: true });

    await check("docker-compose.yml runs (podman-compose): the lab answers, and its volume keeps the generated password", composeRuns);
  } finally {
    cleanup();
    const failed = results.filter((r) => r.status === "FAIL");
    say(`\n${"-".repeat(100)}\nnpm run test:container: ${results.length} steps in ${secs(t0)}`);
    for (const r of results) say(`${r.status === "pass" ? "✓" : "✗"} ${r.name} (${r.time})`);
    if (!stackUp && !failed.length) say("✗ the lab never started");
    fs.rmSync(WORK, { recursive: true, force: true });
    process.exitCode = failed.length || !stackUp ? 1 : 0;
  }
}

/**
 * The class behind one address: every phone reaches the container's published port through one
 * address (Docker Desktop's gateway; here podman's, which masquerades what comes to 127.0.0.1:PORT).
 * Thirty phones, each with its own cookie jar, join and tap Buy twice on a one-per-buyer drop of 10:
 * they must be thirty people (the room's people per address, the image's default), ten of them get
 * one unit each, and nginx turns none away as one phone's flood. The room API shows them all at one
 * address, so the test knows the condition it claims held.
 */
async function thirtyPhonesBehindOneAddress(port, cookie, checker) {
  const room = await http(port, "GET", "/api/admin/room", { cookie });
  assert(room.status === 200, `GET /api/admin/room answered ${room.status}`);
  assert(room.json.room.peoplePerAddress >= 30 && room.json.room.sizedFor >= 30,
    `the image's room allows ${room.json.room.peoplePerAddress} people per address (nginx sized for ${room.json.room.sizedFor}): a class behind one address would be one person`);
  const drop = await http(port, "POST", "/api/admin/drop", { cookie, body: { stock: 10, countdownS: 0, onePerBuyer: true, strategy: "token-lua", workMs: 5 } });
  assert(drop.status === 201, `the drop did not start: ${drop.status} ${drop.text.slice(0, 200)}`);
  const saleId = drop.json.sale.id;
  const joins = await Promise.all(Array.from({ length: 30 }, (_, i) => http(port, "POST", "/api/workshop/join", { body: { name: `Phone ${i + 1}` } })));
  assert(joins.every((j) => j.status === 201), `joins answered ${joins.map((j) => j.status).join(" ")}`);
  const cookies = joins.map((j) => j.headers.getSetCookie().find((c) => c.startsWith("locklab_buyer=")).split(";")[0]);
  const buyers = new Set(joins.map((j) => j.json.buyer));
  assert(buyers.size === 30, `30 phones joined as ${buyers.size} people`);
  const seen = (await http(port, "GET", "/api/admin/room", { cookie })).json.room;
  const theirs = seen.people.filter((person) => buyers.has(person.buyer));
  const addresses = new Set(theirs.map((person) => person.address));
  assert(theirs.length === 30 && addresses.size === 1, `the 30 phones arrived from ${addresses.size} addresses (${[...addresses].join(", ")}), not one`);
  const taps = await Promise.all(cookies.flatMap((c) => [0, 1].map(() => http(port, "POST", "/api/buy", { cookie: c, body: { buyer: "ignored" } }))));
  const limited = taps.filter((t) => t.status === 429);
  assert(limited.length === 0, `${limited.length} taps were turned away by a limit: ${limited[0]?.text.slice(0, 200)}`);
  const bought = taps.filter((t) => t.status === 201);
  const winners = new Set(bought.map((t) => t.json.order.buyer));
  assert(bought.length === 10 && winners.size === 10, `${bought.length} units went to ${winners.size} people`);
  const checked = await checker.settledSale(saleId);
  assert(checked.orders === 10 && checked.doubleSold === 0 && checked.lostUnits === 0 && checked.phantomUnits === 0, `not honest: ${JSON.stringify(checked)}`);
  for (const person of theirs) await http(port, "DELETE", `/api/admin/room/people/${person.buyer}`, { cookie });
  return `30 people at ${[...addresses][0]}; 60 taps: 10 bought by 10 people, ${taps.filter((t) => t.json?.code === "one_per_buyer").length} one_per_buyer, ${taps.filter((t) => t.json?.code === "sold_out").length} sold_out, 0 limited; the checker: 10 orders, 0 twice, 0 lost`;
}

async function composeRuns() {
  const port = PORT + 2;
  const env = { ...process.env, LAB_PORT: `127.0.0.1:${port}` };
  delete env.JOIN_URL;
  delete env.ADMIN_PASSWORD;
  const compose = (args, options = {}) => run("podman-compose", ["-p", COMPOSE_PROJECT, "-f", path.join(ROOT, "docker-compose.yml"), ...args], { env, timeoutMs: 180_000, ...options });
  const logs = () => {
    const r = compose(["logs", "lab"], { allowFail: true });
    return `${r.stdout ?? ""}${r.stderr ?? ""}`;
  };
  try {
    compose(["up", "-d"]);
    const first = await waitForBanner(logs, "the compose service");
    const c = await signIn(port, first.password);
    const lab = await http(port, "GET", "/api/admin/lab", { cookie: c });
    assert(lab.json?.faults?.network?.available === true, `compose's lab cannot cut links (cap_add NET_ADMIN): ${JSON.stringify(lab.json?.faults?.network)}`);
    compose(["down"]);
    compose(["up", "-d"]);
    // The second start prints its banner too; the first one's lines are gone with its container.
    const second = await waitForBanner(logs, "the compose service, started again");
    assert(second.password === first.password, `the second start printed another password (${second.password} ≠ ${first.password}): the volume kept nothing`);
    await signIn(port, second.password);
    return `up, down, up: one password, kept in volume ${COMPOSE_PROJECT}_lab-data`;
  } finally {
    compose(["down", "-v"], { allowFail: true });
  }
}

await main();
