/**
 * What integration tests use to drive the real stack: the public URL (nginx), each instance's
 * own URL, the shared config and sale (through the app's own lib, on the real Redis/Postgres),
 * and the stack runner's fault controls.
 */
import { updateConfig, resetConfig } from "@/lib/sale/config";
import { getSaleStats, resetSale, type SaleStats } from "@/lib/sale/sale";
import type { LockConfigUpdate } from "@/lib/validations/config";
import { waitFor } from "./wait";

export const PUBLIC_URL = `http://127.0.0.1:${process.env.PUBLIC_PORT ?? 3000}`;
const APP_PORTS = (process.env.APP_PORTS ?? "3001,3002").split(",").map(Number);
export const instanceUrl = (index: number) => `http://127.0.0.1:${APP_PORTS[index]}`;

export async function prepareSale(config: LockConfigUpdate, initialStock: number, sale: { onePerBuyer?: boolean } = {}): Promise<void> {
  await resetConfig();
  await updateConfig(config);
  await resetSale({ initialStock, ...sale });
}

/** One `POST /api/buy` for `buyer` at `baseUrl` (nginx or one instance), with any extra headers. */
export function postBuy(baseUrl: string, buyer: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${baseUrl}/api/buy`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ buyer }),
    signal: AbortSignal.timeout(30_000),
  });
}

export { getSaleStats, type SaleStats };

export interface BlastResult {
  readonly statuses: Record<string, number>;
  readonly bought: number;
  readonly soldOut: number;
  readonly busy: number;
  readonly unavailable: number;
  /** 503 lock_lost: the holder stopped before writing (lease ran out, or a fenced store refused it). */
  readonly lockLost: number;
  readonly other: number;
}

/** `buyers` concurrent one-shot purchases against `baseUrl`; counts every answer by code. */
export async function blast(baseUrl: string, buyers: number): Promise<BlastResult> {
  const statuses: Record<string, number> = {};
  const answers = await Promise.all(
    Array.from({ length: buyers }, async (_, index) => {
      const response = await fetch(`${baseUrl}/api/buy`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ buyer: `buyer-${index}` }),
        signal: AbortSignal.timeout(60_000),
      });
      const body = (await response.json()) as { code?: string; status?: string };
      const key = `${response.status} ${body.code ?? body.status}`;
      statuses[key] = (statuses[key] ?? 0) + 1;
      return body.code ?? body.status ?? "unknown";
    }),
  );
  const count = (code: string) => answers.filter((answer) => answer === code).length;
  const known = count("bought") + count("sold_out") + count("busy") + count("unavailable") + count("lock_lost");
  return {
    statuses,
    bought: count("bought"),
    soldOut: count("sold_out"),
    busy: count("busy"),
    unavailable: count("unavailable"),
    lockLost: count("lock_lost"),
    other: buyers - known,
  };
}

/**
 * Blasts `buyers` again and again, 250 ms apart, until a blast in which at least one buys, and
 * resolves with that blast: a server that was just started again is reconnected to in the
 * background, so the first buyers may still fail. Fails after `timeoutMs` with the last blast's
 * answers. (It used to stop after 21 blasts 250 ms apart: 5 s of pauses plus the blasts.)
 */
export function blastUntilBought(baseUrl: string, buyers: number, timeoutMs = 10_000): Promise<BlastResult> {
  return waitFor(() => blast(baseUrl, buyers), {
    until: (result) => result.bought > 0,
    intervalMs: 250,
    timeoutMs,
    what: `a blast of ${buyers} buyers at ${baseUrl} in which at least one buys`,
  });
}

/** The stack runner's fault-control API, through the same client the app uses. */
export { stackControl } from "@/lib/stack/control";
