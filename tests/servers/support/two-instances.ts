/**
 * Two processes, as two app instances would be, each sending its share of acquirers at one
 * resource at once (./lock-worker.mts); what they report, put together: every holder's time
 * inside, the most holders inside at once, the refusals, the releases that found their lock lost.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { ROOT } from "../../../scripts/stack/paths";

export interface Contention {
  readonly held: readonly (readonly [number, number])[];
  /** The most holders inside at the same instant, across both processes. */
  readonly peak: number;
  /** Error names of the acquirers that never got in. */
  readonly refused: readonly string[];
  readonly lost: number;
}

/** The most intervals open at once (one that ends as another begins does not overlap it). */
export function peakOverlap(held: readonly (readonly [number, number])[]): number {
  const edges = held.flatMap(([enteredAt, leftAt]) => [[enteredAt, 1], [leftAt, -1]] as const);
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let inside = 0;
  let peak = 0;
  for (const [, step] of edges) peak = Math.max(peak, (inside += step));
  return peak;
}

interface Worker {
  readonly ready: Promise<void>;
  go(): void;
  readonly answer: Promise<{ held: [number, number][]; refused: string[]; lost: number }>;
}

function startWorker(args: Record<string, unknown>): Worker {
  const worker = path.join(ROOT, "tests/servers/support/lock-worker.mts");
  const child = spawn(process.execPath, ["--import", "tsx", worker, JSON.stringify(args)], { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  let err = "";
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const answer = new Promise<{ held: [number, number][]; refused: string[]; lost: number }>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.startsWith("ready\n")) markReady();
    });
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.once("exit", (code) => {
      markReady();
      const line = out.trim().split("\n").pop() ?? "";
      try {
        resolve(JSON.parse(line));
      } catch {
        reject(new Error(`lock worker exited ${code}: ${err.slice(-1000) || out.slice(-1000)}`));
      }
    });
  });
  return { ready, answer, go: () => child.stdin.end("go\n") };
}

export async function fromTwoInstances(args: { strategy: string; resource: string; perInstance: number; workMs: number; waitTimeoutMs: number; ttlMs: number; clusterNodes?: readonly string[]; postgresPort?: number; pgbouncerPort?: number }): Promise<Contention> {
  const { perInstance, ...rest } = args;
  const workers = [startWorker({ ...rest, count: perInstance }), startWorker({ ...rest, count: perInstance })];
  await Promise.all(workers.map((w) => w.ready));
  for (const w of workers) w.go();
  const answers = await Promise.all(workers.map((w) => w.answer));
  const held = answers.flatMap((a) => a.held);
  return { held, peak: peakOverlap(held), refused: answers.flatMap((a) => a.refused), lost: answers.reduce((sum, a) => sum + a.lost, 0) };
}
