/**
 * A closed-model load for as long as a test needs it: `buyers` buyers buying back to back through
 * `baseUrl` until `stop` aborts, each answer kept (status, code, and which instances nginx tried,
 * from X-Upstream). Traffic to 127.0.0.1 only; every request has a timeout.
 */
export interface Answer {
  readonly status: number;
  readonly code: string;
  /** The instances nginx tried, as it said in X-Upstream ('' when it tried none). */
  readonly upstream: string;
}

export async function closedLoad(baseUrl: string, options: { buyers: number; stop: AbortSignal; prefix: string }): Promise<Answer[]> {
  const url = new URL("/api/buy", baseUrl);
  if (url.hostname !== "127.0.0.1") throw new Error(`load goes to 127.0.0.1 only, not ${url.hostname}`);
  const answers: Answer[] = [];
  let next = 0;
  const buyer = async () => {
    while (!options.stop.aborted) {
      try {
        const response = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ buyer: `${options.prefix}-${next++}` }),
          signal: AbortSignal.timeout(30_000),
        });
        const body = (await response.json().catch(() => ({}))) as { code?: string; status?: string };
        answers.push({ status: response.status, code: body.code ?? body.status ?? "?", upstream: (response.headers.get("x-upstream") ?? "").replace(/^-$/, "") });
      } catch (error) {
        answers.push({ status: 0, code: (error as Error).name, upstream: "" });
      }
    }
  };
  await Promise.all(Array.from({ length: options.buyers }, buyer));
  return answers;
}

/** Answers counted by "status code". */
export const countAnswers = (answers: readonly Answer[]) =>
  answers.reduce<Record<string, number>>((count, a) => ((count[`${a.status} ${a.code}`] = (count[`${a.status} ${a.code}`] ?? 0) + 1), count), {});
