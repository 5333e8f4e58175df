/**
 * An open-model load from the test process, as k6's ramping-arrival-rate makes it: buyers arrive
 * at `ratePerS` whatever the store answers, at most `maxInFlight` at once (an arrival finding none
 * free is dropped and counted). Bounded in time and count; traffic to 127.0.0.1 only.
 */
export interface OpenLoadResult {
  readonly arrivals: number;
  readonly dropped: number;
  readonly statuses: Readonly<Record<string, number>>;
  readonly bought: number;
}

/** `stop` ends the arrivals before `durationMs` (which stays the bound); buyers in flight are awaited either way. */
export async function openLoad(baseUrl: string, options: { ratePerS: number; durationMs: number; maxInFlight?: number; prefix: string; headers?: Record<string, string>; stop?: AbortSignal }): Promise<OpenLoadResult> {
  const url = new URL("/api/buy", baseUrl);
  if (url.hostname !== "127.0.0.1") throw new Error(`load goes to 127.0.0.1 only, not ${url.hostname}`);
  const maxInFlight = options.maxInFlight ?? 500;
  const statuses: Record<string, number> = {};
  const inFlight = new Set<Promise<void>>();
  let arrivals = 0;
  let dropped = 0;
  const startedAt = Date.now();
  const tickMs = 10;
  const buy = async (index: number) => {
    let key: string;
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...options.headers },
        body: JSON.stringify({ buyer: `${options.prefix}-${index}` }),
        signal: AbortSignal.timeout(30_000),
      });
      const body = (await response.json().catch(() => ({}))) as { code?: string; status?: string };
      key = `${response.status} ${body.code ?? body.status ?? "?"}`;
    } catch (error) {
      key = `error ${(error as Error).name}`;
    }
    statuses[key] = (statuses[key] ?? 0) + 1;
  };
  while (Date.now() - startedAt < options.durationMs && !options.stop?.aborted) {
    const due = Math.floor(((Date.now() - startedAt) / 1000) * options.ratePerS);
    while (arrivals < due) {
      const index = arrivals++;
      if (inFlight.size >= maxInFlight) {
        dropped++;
        continue;
      }
      const request = buy(index).finally(() => inFlight.delete(request));
      inFlight.add(request);
    }
    await new Promise((resolve) => setTimeout(resolve, tickMs));
  }
  await Promise.all(inFlight);
  return { arrivals, dropped, statuses, bought: statuses["201 bought"] ?? 0 };
}
