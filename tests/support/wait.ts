/**
 * The tests' one way to wait.
 *
 * - `waitFor`: wait until something has happened (a reservation appeared, a run completed, a
 *   server answers again). It asks `probe` again and again until its answer satisfies `until`, and
 *   fails after `timeoutMs` with an error that says what it waited for, for how long, and what it
 *   saw last. Never a fixed sleep in its place: a sleep is either too short (flaky) or too long
 *   (slow), and when it is too short the test fails far from the cause.
 * - `sleep`: a fixed delay that IS the scenario — a holder that works for 1 ms, a fault held for
 *   800 ms, work that runs past a TTL, a clock that has to pass a moment. Nothing is being waited
 *   for; where the purpose is not obvious the caller says it in a comment.
 */

export interface WaitForOptions<T> {
  /** What is awaited, in words, for the error on timeout: "the lab run to finish". */
  readonly what: string;
  /** Give up after this long (from the call), ms. */
  readonly timeoutMs: number;
  /** Whether `probe`'s answer is the one awaited. @default the answer is truthy */
  readonly until?: (value: T) => boolean;
  /** Pause between one probe's answer and the next probe, ms. @default 25 */
  readonly intervalMs?: number;
}

const DEFAULT_INTERVAL_MS = 25;

/**
 * Calls `probe` until its answer satisfies `until` (default: truthy) and resolves with that answer.
 * A probe that throws (or rejects) counts as "not yet": its error is kept for the timeout message.
 * The first probe runs at once; the next one `intervalMs` after the previous one answered, and
 * none starts once `timeoutMs` has passed (a probe that hangs is the caller's to bound, e.g. with
 * `AbortSignal.timeout` on its fetch).
 * @throws Error when `timeoutMs` passes first, saying what was awaited, how long, and the last
 *   value or error seen (the error is the thrown one's `cause`).
 */
export async function waitFor<T>(probe: () => Promise<T> | T, options: WaitForOptions<T>): Promise<T> {
  const { what, timeoutMs, until = Boolean, intervalMs = DEFAULT_INTERVAL_MS } = options;
  const startedAt = Date.now();
  const deadline = startedAt + timeoutMs;
  let last: { readonly kind: "value"; readonly value: T } | { readonly kind: "error"; readonly error: unknown } | undefined;
  let probes = 0;
  for (;;) {
    probes++;
    try {
      const value = await probe();
      if (until(value)) return value;
      last = { kind: "value", value };
    } catch (error) {
      last = { kind: "error", error };
    }
    const left = deadline - Date.now();
    if (left <= 0) break;
    await sleep(Math.min(intervalMs, left));
  }
  const seen = !last
    ? "nothing"
    : last.kind === "value"
      ? `the value ${describe(last.value)}`
      : `the error ${last.error instanceof Error ? `${last.error.name}: ${last.error.message}` : describe(last.error)}`;
  throw new Error(`timed out after ${Date.now() - startedAt} ms (limit ${timeoutMs} ms, ${probes} probes) waiting for ${what}; last saw ${seen}`, {
    cause: last?.kind === "error" ? last.error : undefined,
  });
}

/** A fixed delay that is part of the scenario, never a stand-in for "until X happened" (use `waitFor`). */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A short, readable rendering of a probe's last answer for the timeout message. */
function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 300 ? `${value.slice(0, 300)}…` : value);
  try {
    const text = JSON.stringify(value);
    if (text === undefined) return String(value);
    return text.length > 300 ? `${text.slice(0, 300)}…` : text;
  } catch {
    return String(value);
  }
}
