/**
 * `npm run bench -- --flood`: one address floods the store's public pages while a class buys.
 * Thirty phones (each its own loopback address, 127.1.x.y, which nginx meets as a phone on the
 * Wi-Fi) join and buy in a loop for BENCH_FLOOD_S seconds under token-lua: first quietly, then while
 * one more address (127.1.250.250) holds 200 connections on `/` and `/api/sale` in a loop (from a
 * process of its own at the lowest priority: the flooding phone's own work is not the laptop's). Measured:
 * the phones' buy answers (p50, p99, every status) in both phases, what the flood was answered, and
 * the aim — the flooded p99 within 1.5× of the quiet one, and no answer a quiet buyer never saw.
 * Figures, not assertions: the aims are printed with ✓ or ✗.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { getEnv } from "../lib/env";
import { getSaleStats } from "../lib/sale/sale";
import { admin, call, inBatches, signIn } from "./hall";
import { percentile } from "./stats";

const PHONES = 30;
const FLOOD_CONNECTIONS = 200;
const FLOODER = "127.1.250.250";
/** Between a phone's taps: a person taps again after they read the answer. */
const THINK_MS = 250;
const AIM_P99_RATIO = 1.5;

const pct = (values: readonly number[], p: number) => percentile([...values].sort((a, b) => a - b), p * 100);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Phase {
  readonly latencies: number[];
  readonly statuses: Record<string, number>;
}

/** Every phone buys, thinks, buys again until `until`. */
async function classBuys(addresses: readonly string[], cookies: readonly string[], until: number): Promise<Phase> {
  const phase: Phase = { latencies: [], statuses: {} };
  await Promise.all(addresses.map(async (from, i) => {
    while (Date.now() < until) {
      const answer = await call("POST", "/api/buy", { from, cookie: cookies[i]!, body: { buyer: "phone" }, timeoutMs: 30_000 });
      phase.latencies.push(answer.ms);
      const code = (() => {
        try {
          return (JSON.parse(answer.body) as { code?: string; status?: string }).code ?? (JSON.parse(answer.body) as { status?: string }).status ?? "?";
        } catch {
          return answer.status === 0 ? "no answer" : "?";
        }
      })();
      phase.statuses[`${answer.status} ${code}`] = (phase.statuses[`${answer.status} ${code}`] ?? 0) + 1;
      await sleep(THINK_MS);
    }
  }));
  return phase;
}

/**
 * One address, `connections` at once, GET / and GET /api/sale in a loop until the time is up, from
 * a process of its own at the lowest priority (bench/flood-child.mjs says why).
 */
async function flood(seconds: number, connections: number): Promise<Record<string, number>> {
  const child = spawn("nice", ["-n", "19", process.execPath, path.join(__dirname, "flood-child.mjs"), getEnv().PUBLIC_URL, FLOODER, String(connections), String(seconds)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  if (code !== 0) throw new Error(`the flood's process exited with ${code}`);
  return JSON.parse(out.trim().split("\n").pop() ?? "{}") as Record<string, number>;
}

const line = (name: string, phase: Phase) =>
  `${name.padEnd(8)} ${String(phase.latencies.length).padStart(6)} buys · p50 ${pct(phase.latencies, 0.5).toFixed(0).padStart(5)} ms · p99 ${pct(phase.latencies, 0.99).toFixed(0).padStart(5)} ms · ${JSON.stringify(phase.statuses)}`;

export async function runFloodBench(): Promise<number> {
  const seconds = Number(process.env.BENCH_FLOOD_S ?? 20);
  const cookie = await signIn();
  const addresses = Array.from({ length: PHONES }, (_, i) => `127.1.249.${i + 1}`);
  const drop = await admin("POST", "/api/admin/drop", cookie, { stock: 10_000, countdownS: 0, strategy: "token-lua", workMs: 5 });
  if (drop.status !== 201) throw new Error(`the sale did not start: ${drop.status} ${drop.body}`);
  const joined = await inBatches(addresses, 10, (from, i) => call("POST", "/api/workshop/join", { from, body: { name: `Buyer ${i + 1}` } }));
  const cookies = joined.map((answer) => (answer.setCookie.find((c) => c.startsWith("locklab_buyer=")) ?? "").split(";")[0]!);
  if (cookies.some((c) => !c)) throw new Error(`not every phone could join: ${joined.map((a) => a.status).join(" ")}`);

  process.stderr.write(`… ${PHONES} phones buy for ${seconds} s, quietly\n`);
  const quiet = await classBuys(addresses, cookies, Date.now() + seconds * 1000);
  process.stderr.write(`… ${PHONES} phones buy for ${seconds} s while ${FLOODER} holds ${FLOOD_CONNECTIONS} connections on / and /api/sale\n`);
  const until = Date.now() + seconds * 1000;
  const [flooded, flooder] = await Promise.all([classBuys(addresses, cookies, until), flood(seconds, FLOOD_CONNECTIONS)]);
  const stats = await getSaleStats();
  await admin("DELETE", "/api/admin/drop", cookie);

  console.log(`\nOne address floods the public pages (${FLOOD_CONNECTIONS} connections on / and /api/sale) while ${PHONES} phones buy under token-lua, ${seconds} s each phase\n`);
  console.log(line("quiet", quiet));
  console.log(line("flooded", flooded));
  console.log(`the flood was answered: ${JSON.stringify(flooder)}`);
  console.log(`the sale: ${stats.orders} sold, ${stats.doubleSold} sold twice, ${stats.lostUnits} lost, ${stats.verdict}\n`);
  const ratio = pct(flooded.latencies, 0.99) / Math.max(1, pct(quiet.latencies, 0.99));
  const newAnswers = Object.keys(flooded.statuses).filter((status) => !(status in quiet.statuses));
  console.log(`${ratio <= AIM_P99_RATIO ? "✓" : "✗"} the phones' buy p99 flooded ÷ quiet: ${ratio.toFixed(2)} (aim ≤ ${AIM_P99_RATIO})`);
  console.log(`${newAnswers.length === 0 ? "✓" : "✗"} no answer the quiet phones never had${newAnswers.length ? `: ${newAnswers.join(", ")}` : ""}`);
  console.log(`${stats.verdict === "PASS" ? "✓" : "✗"} the sale stays honest: ${stats.verdict}`);
  return 0;
}
