/**
 * `npm run bench -- --hall`: a conference hall, not a classroom. For each hall size N (100, 300 and
 * 1,000 phones by default; BENCH_HALL_PHONES), N phones join the workshop, each from an address of
 * its own, and hold a live stream (/api/live) through nginx; then a drop of 100 units opens and all
 * N tap Buy within one second of its zero. Measured per N: streams held, when each phone's stream
 * said "sold out" (against the drop's zero and against the last unit sold), the buy answers' p50
 * and p99, 5xx answers and dropped streams, CPU and memory of each instance and of nginx, and the
 * sale's accounting. Then the same hall under `none`, which must still oversell, visibly.
 *
 * Every phone is a loopback address of its own (127.1.x.y): the traffic goes to 127.0.0.1 only, and
 * nginx, which exempts only 127.0.0.1 from its per-address limits, meets each phone as a phone.
 * Figures, not assertions: the aims are printed with ✓ or ✗. BENCH_HALL_STREAMS=0 plays the hall
 * with no phone holding a stream (to see what the streams cost the buyers; its stream aims fail).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { getEnv } from "../lib/env";
import { getPool } from "../lib/db";
import { getSaleStats } from "../lib/sale/sale";
import { takeEventData } from "../lib/workshop/sse-read";
import { percentile } from "./stats";

/** p (0..1) of `values`, in any order. */
const pct = (values: readonly number[], p: number) => percentile([...values].sort((a, b) => a - b), p * 100);

const DROP_STOCK = 100;
const TAP_SPREAD_MS = 1000;
/** Aims (issue: a conference hall): every stream held, no 5xx, the end seen within 1 s p99 of the last unit sold, buy p99 under 2 s. */
const AIMS = { soldOutSeenP99Ms: 1000, buyP99Ms: 2000 } as const;

interface Answer {
  readonly status: number;
  readonly ms: number;
  readonly body: string;
  readonly setCookie: readonly string[];
}

/** One HTTP call from a phone's own address to nginx on 127.0.0.1. */
export function call(method: string, pathName: string, options: { from: string; body?: unknown; cookie?: string; timeoutMs?: number }): Promise<Answer> {
  const url = new URL(pathName, getEnv().PUBLIC_URL);
  const started = performance.now();
  return new Promise((resolve) => {
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    const req = http.request({
      host: url.hostname, port: url.port, path: url.pathname, method, localAddress: options.from, agent: false, timeout: options.timeoutMs ?? 30_000,
      headers: { ...(payload ? { "content-type": "application/json", "content-length": Buffer.byteLength(payload) } : {}), ...(options.cookie ? { cookie: options.cookie } : {}) },
    }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, body, setCookie: res.headers["set-cookie"] ?? [] }));
    });
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", () => resolve({ status: 0, ms: performance.now() - started, body: "", setCookie: [] }));
    if (payload) req.write(payload);
    req.end();
  });
}

/** A phone's live stream: when its first snapshot came, when one first said the stock was gone, and whether it stayed open. */
interface Stream {
  firstAt?: number;
  soldOutSeenAt?: number;
  ended: boolean;
  close(): void;
}

/**
 * Whether a snapshot shows `saleId`'s drop open with no stock left. A thousand phones' parsing
 * runs on the cores the stack runs on (in a hall each phone parses on its own), so the fields are
 * read off the text, the whole JSON parsed only when the text is not laid out as the hub writes it.
 */
export function showsSoldOut(data: string, saleId: number): boolean {
  const head = /^\{"saleId":(\d+),"stock":(-?\d+),/.exec(data);
  const state = /"drop":\{"state":"(\w+)"/.exec(data);
  if (head && state) return Number(head[1]) === saleId && Number(head[2]) <= 0 && state[1] === "open";
  const snapshot = JSON.parse(data) as { saleId: number; stock: number; drop?: { state: string } };
  return snapshot.saleId === saleId && snapshot.stock <= 0 && snapshot.drop?.state === "open";
}

/** Opens a phone's stream; only snapshots of `saleId` count (one may still show the drop before). */
function openStream(from: string, cookie: string, saleId: number): Stream {
  const url = new URL("/api/live", getEnv().PUBLIC_URL);
  const stream: Stream = { ended: false, close: () => {} };
  const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, localAddress: from, agent: false, headers: { cookie, accept: "text/event-stream" } }, (res) => {
    if (res.statusCode !== 200) {
      stream.ended = true;
      res.resume();
      return;
    }
    let buffered = "";
    res.setEncoding("utf8");
    res.on("data", (chunk: string) => {
      // Seen is seen: the load generator shares the stack's two cores, so once a phone has seen the
      // end it neither buffers nor parses what its stream still brings.
      if (stream.soldOutSeenAt !== undefined) return;
      const { data, rest } = takeEventData(buffered + chunk);
      buffered = rest;
      for (const event of data) {
        const at = Date.now();
        stream.firstAt ??= at;
        if (stream.soldOutSeenAt !== undefined) break;
        if (showsSoldOut(event, saleId)) stream.soldOutSeenAt ??= at;
      }
    });
    res.on("end", () => (stream.ended = true));
    res.on("error", () => (stream.ended = true));
  });
  req.on("error", () => (stream.ended = true));
  req.end();
  stream.close = () => req.destroy();
  return stream;
}

/** CPU seconds and resident memory of the stack's instances and nginx, from /proc. */
interface ProcessFigures {
  readonly name: string;
  readonly cpuS: number;
  readonly rssMb: number;
}

function processFigures(pids: readonly { name: string; pid: number }[]): ProcessFigures[] {
  const tick = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  return pids.flatMap(({ name, pid }) => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
      const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
      const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      return [{ name, cpuS: (Number(stat[11]) + Number(stat[12])) / tick, rssMb: rssKb / 1024 }];
    } catch {
      return [];
    }
  });
}

async function stackPids(): Promise<{ name: string; pid: number }[]> {
  const env = getEnv();
  const status = (await (await fetch(`${env.STACK_CONTROL_URL}/status`, { headers: { "x-stack-token": env.STACK_CONTROL_TOKEN } })).json()) as {
    apps: { instance: string; pid: number | null }[];
  };
  const apps = status.apps.flatMap((app) => (app.pid ? [{ name: app.instance, pid: app.pid }] : []));
  const masterFile = path.join(process.cwd(), ".stack", "nginx", "nginx.pid");
  const master = fs.existsSync(masterFile) ? Number(fs.readFileSync(masterFile, "utf8").trim()) : 0;
  const workers = master ? execFileSync("pgrep", ["-P", String(master)], { encoding: "utf8" }).trim().split("\n").filter(Boolean).map(Number) : [];
  return [...apps, ...(master ? [{ name: "nginx master", pid: master }] : []), ...workers.map((pid, i) => ({ name: `nginx worker ${i + 1}`, pid }))];
}

const phoneAddress = (index: number) => `127.1.${Math.floor((index + 1) / 250)}.${((index + 1) % 250) + 1}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function admin(method: string, pathName: string, cookie: string, body?: unknown): Promise<Answer> {
  return call(method, pathName, { from: "127.0.0.1", cookie, ...(body === undefined ? {} : { body }) });
}

export async function signIn(): Promise<string> {
  const password = getEnv().ADMIN_PASSWORD;
  if (!password) throw new Error("ADMIN_PASSWORD is not set (run through `npm run bench -- --hall`)");
  const answer = await call("POST", "/api/admin/session", { from: "127.0.0.1", body: { password } });
  const cookie = answer.setCookie.find((value) => value.startsWith("locklab_admin="));
  if (!cookie) throw new Error(`admin sign-in answered ${answer.status}`);
  return cookie.split(";")[0]!;
}

/** Runs `task` over `items`, `width` at a time. */
export async function inBatches<T, R>(items: readonly T[], width: number, task: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index]!, index);
    }
  }));
  return results;
}

export interface HallResult {
  readonly phones: number;
  readonly strategy: string;
  readonly streamsHeld: number;
  readonly streamsDropped: number;
  readonly soldOutSeen: number;
  readonly seenAfterZeroMs: { p50: number; p99: number };
  readonly seenAfterLastSaleMs: { p50: number; p99: number; max: number };
  readonly buyMs: { p50: number; p99: number };
  readonly statuses: Readonly<Record<string, number>>;
  readonly fiveXx: number;
  readonly processes: readonly (ProcessFigures & { cpuDuringS: number; rssPeakMb: number })[];
  readonly orders: number;
  readonly doubleSold: number;
  readonly lostUnits: number;
}

/** One hall: N phones join, hold streams, and tap Buy within a second of the drop's zero. */
export async function runHall(phones: number, strategy: string, adminCookie: string): Promise<HallResult> {
  const addresses = Array.from({ length: phones }, (_, i) => phoneAddress(i));
  // Phones join (each its own person), as students do before the drop.
  const joined = await inBatches(addresses, 50, (from, i) => call("POST", "/api/workshop/join", { from, body: { name: `Phone ${i + 1}` } }));
  const cookies = joined.map((answer) => (answer.setCookie.find((c) => c.startsWith("locklab_buyer=")) ?? "").split(";")[0]!);
  const notJoined = cookies.filter((c) => !c).length;
  if (notJoined) throw new Error(`${notJoined} of ${phones} phones could not join (${JSON.stringify(joined.find((a) => !a.setCookie.length)?.status)})`);

  const countdownS = 5 + Math.ceil(phones / 150);
  const drop = await admin("POST", "/api/admin/drop", adminCookie, { stock: DROP_STOCK, countdownS, strategy, workMs: 0 });
  if (drop.status !== 201) throw new Error(`the drop did not start: ${drop.status} ${drop.body}`);
  const started = JSON.parse(drop.body) as { sale: { id: number }; drop: { opensAt: number } };
  const opensAt = started.drop.opensAt;
  const saleId = started.sale.id;

  const pids = await stackPids();
  const before = processFigures(pids);
  const peakRss = new Map<string, number>();
  const sampler = setInterval(() => {
    for (const figure of processFigures(pids)) peakRss.set(figure.name, Math.max(peakRss.get(figure.name) ?? 0, figure.rssMb));
  }, 250);

  // Streams open, a few at a time, as phones arrive in the hall.
  const streams: Stream[] = [];
  for (const [i, from] of addresses.entries()) {
    if (process.env.BENCH_HALL_STREAMS !== "0") streams.push(openStream(from, cookies[i]!, saleId));
    if (i % 20 === 19) await sleep(10);
  }
  // Everyone taps within a second of the zero.
  const buying = addresses.map(async (from, i) => {
    await sleep(Math.max(0, opensAt - Date.now()) + Math.random() * TAP_SPREAD_MS);
    return call("POST", "/api/buy", { from, cookie: cookies[i]!, body: { buyer: "phone" } });
  });
  const answers = await Promise.all(buying);
  // The last snapshots travel after the last answer.
  await sleep(3000);
  clearInterval(sampler);
  const after = processFigures(pids);
  // Dropped: ended on the server's side before the bench closes them.
  const streamsDropped = streams.filter((stream) => stream.firstAt !== undefined && stream.ended).length;
  for (const stream of streams) stream.close();

  const stats = await getSaleStats();
  const { rows } = await getPool().query<{ last: Date | null }>("SELECT max(created_at AT TIME ZONE 'UTC') AS last FROM orders WHERE sale_id = $1 AND status = 'sold'", [saleId]);
  const lastSoldAt = rows[0]?.last ? new Date(rows[0].last).getTime() : opensAt;
  const seen = streams.flatMap((stream) => (stream.soldOutSeenAt ? [stream.soldOutSeenAt] : []));
  const statuses = answers.reduce<Record<string, number>>((count, answer) => {
    const code = (() => {
      try {
        return (JSON.parse(answer.body) as { code?: string; status?: string }).code ?? (JSON.parse(answer.body) as { status?: string }).status ?? "?";
      } catch {
        return "?";
      }
    })();
    count[`${answer.status} ${code}`] = (count[`${answer.status} ${code}`] ?? 0) + 1;
    return count;
  }, {});
  await admin("DELETE", "/api/admin/drop", adminCookie);
  return {
    phones,
    strategy,
    streamsHeld: streams.filter((stream) => stream.firstAt !== undefined).length,
    streamsDropped,
    soldOutSeen: seen.length,
    seenAfterZeroMs: { p50: pct(seen.map((t) => t - opensAt), 0.5), p99: pct(seen.map((t) => t - opensAt), 0.99) },
    seenAfterLastSaleMs: {
      p50: pct(seen.map((t) => t - lastSoldAt), 0.5),
      p99: pct(seen.map((t) => t - lastSoldAt), 0.99),
      max: seen.length ? Math.max(...seen.map((t) => t - lastSoldAt)) : 0,
    },
    buyMs: { p50: pct(answers.map((a) => a.ms), 0.5), p99: pct(answers.map((a) => a.ms), 0.99) },
    statuses,
    fiveXx: answers.filter((a) => a.status >= 500 || a.status === 0).length,
    processes: after.map((figure) => ({
      ...figure,
      cpuDuringS: figure.cpuS - (before.find((b) => b.name === figure.name)?.cpuS ?? figure.cpuS),
      rssPeakMb: Math.max(peakRss.get(figure.name) ?? 0, figure.rssMb),
    })),
    orders: stats.orders,
    doubleSold: stats.doubleSold,
    lostUnits: stats.lostUnits,
  };
}

const ms = (value: number) => `${Math.round(value)}`;

export function hallTable(results: readonly HallResult[]): string {
  const lines = [
    "| phones | strategy | streams held | dropped | saw sold out | seen after zero p50 / p99 ms | after last sale p50 / p99 / max ms | buy p50 / p99 ms | 5xx | sold | twice | lost |",
    "|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ...results.map((r) =>
      // Nobody saw the end (under none the stock may never reach 0): no times to give.
      `| ${r.phones} | ${r.strategy} | ${r.streamsHeld} | ${r.streamsDropped} | ${r.soldOutSeen} | ${r.soldOutSeen ? `${ms(r.seenAfterZeroMs.p50)} / ${ms(r.seenAfterZeroMs.p99)}` : "—"} | `
      + `${r.soldOutSeen ? `${ms(r.seenAfterLastSaleMs.p50)} / ${ms(r.seenAfterLastSaleMs.p99)} / ${ms(r.seenAfterLastSaleMs.max)}` : "—"} | ${ms(r.buyMs.p50)} / ${ms(r.buyMs.p99)} | ${r.fiveXx} | ${r.orders} | ${r.doubleSold} | ${r.lostUnits} |`),
  ];
  const answers = results.map((r) =>
    `${r.phones} phones (${r.strategy}) were answered: ${Object.entries(r.statuses).sort((a, b) => b[1] - a[1]).map(([key, n]) => `${n} × ${key}`).join(" · ")}`);
  const processes = results.map((r) =>
    `${r.phones} phones (${r.strategy}): ${r.processes.map((p) => `${p.name} ${p.cpuDuringS.toFixed(1)} CPU s, ${p.rssPeakMb.toFixed(0)} MB peak`).join(" · ")}`);
  return [...lines, "", ...answers, "", ...processes].join("\n");
}

/** The issue's aims for the hall, each with ✓ or ✗. */
export function hallAims(results: readonly HallResult[]): string[] {
  const safe = results.filter((r) => r.strategy !== "none");
  const biggest = safe.reduce<HallResult | undefined>((a, b) => (!a || b.phones > a.phones ? b : a), undefined);
  const lines: string[] = [];
  const aim = (ok: boolean, text: string) => lines.push(`${ok ? "✓" : "✗"} ${text}`);
  if (biggest) {
    aim(biggest.streamsHeld === biggest.phones && biggest.streamsDropped === 0, `hall of ${biggest.phones}: every stream held (${biggest.streamsHeld} of ${biggest.phones}, ${biggest.streamsDropped} dropped)`);
    aim(biggest.fiveXx === 0, `hall of ${biggest.phones}: no 5xx (${biggest.fiveXx})`);
    aim(biggest.soldOutSeen === biggest.phones && biggest.seenAfterLastSaleMs.p99 <= AIMS.soldOutSeenP99Ms,
      `hall of ${biggest.phones}: every phone saw the sale's end within ${AIMS.soldOutSeenP99Ms} ms p99 of the last unit sold (${biggest.soldOutSeen} saw it; p99 ${ms(biggest.seenAfterLastSaleMs.p99)} ms)`);
    aim(biggest.buyMs.p99 < AIMS.buyP99Ms, `hall of ${biggest.phones}: buy answers p99 ${ms(biggest.buyMs.p99)} ms (aim < ${AIMS.buyP99Ms})`);
  }
  // The workshop's per-address limits are for one person's script, not for a hall of distinct phones.
  for (const r of results) {
    const limited = Object.entries(r.statuses).filter(([key]) => key.startsWith("429")).reduce((sum, [, n]) => sum + n, 0);
    aim(limited === 0, `hall of ${r.phones} (${r.strategy}): no phone turned away by the per-address limits (${limited} × 429)`);
  }
  for (const r of safe) aim(r.doubleSold === 0 && r.lostUnits === 0 && r.orders === Math.min(DROP_STOCK, r.phones), `hall of ${r.phones} (${r.strategy}): ${r.orders} sold, ${r.doubleSold} sold twice, ${r.lostUnits} lost`);
  for (const r of results.filter((x) => x.strategy === "none")) aim(r.doubleSold > 0, `hall of ${r.phones} under none still oversells, visibly: ${r.doubleSold} units sold twice`);
  return lines;
}

/**
 * The hall's chart: when the phones saw the end, after the last unit sold (p50 and p99), against N.
 * The legend sits in the heading's row, clear of the aim's label and of every point.
 */
export function hallChart(results: readonly HallResult[]): string {
  const safe = results.filter((r) => r.strategy !== "none").sort((a, b) => a.phones - b.phones);
  const width = 640;
  const height = 320;
  const left = 60;
  const bottom = 40;
  const maxN = Math.max(1000, ...safe.map((r) => r.phones));
  const maxMs = Math.max(AIMS.soldOutSeenP99Ms * 1.2, ...safe.map((r) => r.seenAfterLastSaleMs.p99));
  const x = (n: number) => left + (n / maxN) * (width - left - 20);
  const y = (v: number) => height - bottom - (Math.max(0, v) / maxMs) * (height - bottom - 30);
  const polyline = (pick: (r: HallResult) => number, colour: string) =>
    `<polyline fill="none" stroke="${colour}" stroke-width="2" points="${safe.map((r) => `${x(r.phones).toFixed(1)},${y(pick(r)).toFixed(1)}`).join(" ")}"/>`
    + safe.map((r) => `<circle cx="${x(r.phones).toFixed(1)}" cy="${y(pick(r)).toFixed(1)}" r="3" fill="${colour}"/>`).join("");
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="#fff"/>
<text x="${left}" y="18" font-weight="bold">When the hall's phones saw "sold out", after the last unit sold (ms)</text>
<line x1="${left}" y1="${y(0)}" x2="${width - 20}" y2="${y(0)}" stroke="#999"/>
<line x1="${left}" y1="${y(0)}" x2="${left}" y2="30" stroke="#999"/>
<line x1="${left}" y1="${y(AIMS.soldOutSeenP99Ms)}" x2="${width - 20}" y2="${y(AIMS.soldOutSeenP99Ms)}" stroke="#c92a2a" stroke-dasharray="4 3"/>
<text x="${width - 20}" y="${y(AIMS.soldOutSeenP99Ms) - 4}" text-anchor="end" fill="#c92a2a">aim: p99 ≤ ${AIMS.soldOutSeenP99Ms} ms</text>
${safe.map((r) => `<text x="${x(r.phones)}" y="${height - bottom + 16}" text-anchor="middle">${r.phones}</text>`).join("")}
<text x="${(width + left) / 2}" y="${height - 6}" text-anchor="middle">phones in the hall</text>
${[0, 0.25, 0.5, 0.75, 1].map((f) => `<text x="${left - 6}" y="${y(f * maxMs) + 4}" text-anchor="end">${Math.round(f * maxMs)}</text>`).join("")}
${polyline((r) => r.seenAfterLastSaleMs.p50, "#1971c2")}
${polyline((r) => r.seenAfterLastSaleMs.p99, "#e8590c")}
${[["p50", "#1971c2"], ["p99", "#e8590c"]].map(([label, colour], i) => `<line x1="${width - 110 + 50 * i}" y1="14" x2="${width - 90 + 50 * i}" y2="14" stroke="${colour}" stroke-width="2"/><text x="${width - 86 + 50 * i}" y="18" fill="${colour}">${label}</text>`).join("")}
</svg>
`;
}

export async function runHallBench(): Promise<number> {
  const sizes = (process.env.BENCH_HALL_PHONES ?? "100,300,1000").split(",").map(Number).filter((n) => Number.isInteger(n) && n > 0 && n <= 2000);
  const strategy = process.env.BENCH_HALL_STRATEGY ?? "token-lua";
  const cookie = await signIn();
  const results: HallResult[] = [];
  for (const phones of sizes) {
    process.stderr.write(`… hall of ${phones} phones (${strategy})\n`);
    results.push(await runHall(phones, strategy, cookie));
  }
  const lessonPhones = Math.min(300, Math.max(...sizes));
  process.stderr.write(`… hall of ${lessonPhones} phones (none)\n`);
  results.push(await runHall(lessonPhones, "none", cookie));
  console.log(`\nThe hall: N phones (each its own loopback address, 127.1.x.y) join, hold /api/live through nginx, and tap Buy within ${TAP_SPREAD_MS} ms of a drop of ${DROP_STOCK}'s zero\n`);
  console.log(hallTable(results));
  const chartPath = path.resolve(process.env.BENCH_HALL_CHART ?? "docs/bench-hall.svg");
  fs.writeFileSync(chartPath, hallChart(results));
  console.log(`\nchart: ${path.relative(process.cwd(), chartPath)}\n`);
  for (const line of hallAims(results)) console.log(line);
  return 0;
}
