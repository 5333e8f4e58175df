/**
 * Where an app instance's CPU time goes: reads a V8 `.cpuprofile` (an instance started with
 * `NODE_OPTIONS="--cpu-prof --cpu-prof-dir=…"` and stopped after a load run) and prints self time
 * by part of the stack — Next.js and React, Prisma, pg, ioredis, the lock and purchase code, Node's
 * own HTTP and streams, GC, idle — and the heaviest functions. Evidence for docs/benchmarks.md.
 *
 *   npx tsx bench/cpu-profile.ts /tmp/prof/CPU.….cpuprofile [top=25]
 */
import fs from "node:fs";

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly children?: readonly number[];
}

interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** The part of the stack a function belongs to, from its script's URL. */
export function partOf(url: string, functionName: string): string {
  if (functionName === "(idle)") return "idle (waiting for I/O)";
  if (functionName === "(garbage collector)") return "garbage collection";
  if (functionName === "(program)") return "V8 and native (program)";
  if (/\.next\/server\/chunks\/(lib|app)_/.test(url) || /lib\/(locks|purchase|sale|timeline|workshop)|app\/api/.test(url)) return "Lock Lab's own code (lock, purchase, timeline)";
  if (/\.next\/server\/chunks\//.test(url)) return "the app's server bundle (route handlers with bundled zod and helpers)";
  if (/node_modules\/next\/|node_modules\/react|react-dom|\.next\/server/.test(url)) return "Next.js and React (routing, request/response)";
  if (/@prisma|prisma\/|lib\/generated\/prisma/.test(url)) return "Prisma";
  if (/node_modules\/pg|pg-protocol|pg-pool/.test(url)) return "pg (order insert, Postgres protocol)";
  if (/node_modules\/ioredis|redis-parser|denque|standard-as-callback/.test(url)) return "ioredis (commands, replies)";
  if (/node_modules\/(pino|sonic-boom|thread-stream)/.test(url)) return "pino (logs)";
  if (/node_modules\/(prom-client|tdigest|bintrees)/.test(url)) return "prom-client (metrics)";
  if (/node_modules\/zod/.test(url)) return "zod (validation)";
  if (url.startsWith("node:") || url === "" ) return "Node core (http, net, streams, timers)";
  return "other";
}

export function summarize(profile: Profile): { byPart: [string, number][]; byFunction: [string, number][]; totalMs: number } {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const parts = new Map<string, number>();
  const functions = new Map<string, number>();
  let total = 0;
  for (const [id, us] of selfUs) {
    const frame = nodes.get(id)?.callFrame;
    if (!frame) continue;
    total += us;
    const part = partOf(frame.url, frame.functionName);
    parts.set(part, (parts.get(part) ?? 0) + us);
    const where = frame.url.replace(/^.*node_modules\//, "").replace(/^file:\/\/.*?\/(lib|app|\.next)\//, "$1/");
    const name = `${frame.functionName || "(anonymous)"} ${where}:${frame.lineNumber + 1}`;
    functions.set(name, (functions.get(name) ?? 0) + us);
  }
  const sorted = (map: Map<string, number>) => [...map].map(([k, us]) => [k, us / 1000] as [string, number]).sort((a, b) => b[1] - a[1]);
  return { byPart: sorted(parts), byFunction: sorted(functions), totalMs: total / 1000 };
}

if (process.argv[1]?.endsWith("cpu-profile.ts")) {
  const [file, topArg] = process.argv.slice(2);
  if (!file) {
    console.error("usage: tsx bench/cpu-profile.ts <file.cpuprofile> [top]");
    process.exit(2);
  }
  const { byPart, byFunction, totalMs } = summarize(JSON.parse(fs.readFileSync(file, "utf8")) as Profile);
  const busyMs = totalMs - (byPart.find(([part]) => part.startsWith("idle"))?.[1] ?? 0);
  console.log(`${(totalMs / 1000).toFixed(1)} s profiled, ${(busyMs / 1000).toFixed(1)} s on the CPU\n`);
  console.log("| part | CPU ms | share of busy time |\n|---|--:|--:|");
  for (const [part, ms] of byPart) if (!part.startsWith("idle")) console.log(`| ${part} | ${ms.toFixed(0)} | ${((100 * ms) / busyMs).toFixed(1)} % |`);
  console.log(`\nheaviest functions (self time):`);
  for (const [name, ms] of byFunction.slice(0, Number(topArg ?? 25))) console.log(`  ${ms.toFixed(0).padStart(6)} ms  ${name}`);
}
