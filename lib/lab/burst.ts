/**
 * A lab step's buyers: `buyers` one-shot purchases, `concurrency` at a time, to one address on
 * this machine, each answer counted by its code. Bounded in count and in time (every request has
 * a timeout). Load runs use the autocannon driver; the lab needs exact codes per answer.
 */
export interface BurstResult {
  bought: number;
  soldOut: number;
  busy: number;
  unavailable: number;
  lockLost: number;
  errors: number;
  durationMs: number;
  latenciesMs: number[];
  /** When the first request was sent and the first and last purchases were answered bought (Date.now() ms). */
  startedAt: number;
  firstBoughtAt?: number;
  lastBoughtAt?: number;
}

/**
 * `onAnswer`, when given, sees the running counts after every answer (a caller that must act
 * while the sale sells, such as a fault injected after some units, watches `bought`).
 */
export async function burst(
  baseUrl: string, buyers: number, concurrency: number, timeoutMs: number, prefix: string,
  onAnswer?: (soFar: Readonly<BurstResult>) => void,
): Promise<BurstResult> {
  const url = new URL("/api/buy", baseUrl);
  if (!["127.0.0.1", "localhost", "[::1]"].includes(url.hostname)) throw new Error(`lab traffic goes to loopback only, not ${url.hostname}`);
  const startedAt = Date.now();
  const result: BurstResult = { bought: 0, soldOut: 0, busy: 0, unavailable: 0, lockLost: 0, errors: 0, durationMs: 0, latenciesMs: [], startedAt };
  let next = 0;
  const worker = async () => {
    while (next < buyers) {
      const index = next++;
      const sentAt = Date.now();
      try {
        const response = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ buyer: `${prefix}-${index}` }),
          signal: AbortSignal.timeout(timeoutMs),
        });
        const body = (await response.json().catch(() => ({}))) as { code?: string };
        if (response.status === 201) {
          result.bought++;
          result.firstBoughtAt ??= Date.now();
          result.lastBoughtAt = Date.now();
        }
        else if (body.code === "sold_out") result.soldOut++;
        else if (body.code === "busy") result.busy++;
        else if (body.code === "unavailable") result.unavailable++;
        else if (body.code === "lock_lost") result.lockLost++;
        else result.errors++;
      } catch {
        result.errors++;
      }
      result.latenciesMs.push(Date.now() - sentAt);
      onAnswer?.(result);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, buyers) }, worker));
  result.durationMs = Date.now() - startedAt;
  return result;
}
