/**
 * How the dashboard's islands talk to /api/admin: JSON both ways, never cached. A lapsed session
 * goes back to sign-in. A network failure rejects; the caller says so on screen.
 */
export async function send(method: string, url: string, body?: unknown, signal?: AbortSignal) {
  const response = await fetch(url, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
    cache: "no-store",
    signal,
  });
  // eslint-disable-next-line @next/next/no-location-assign-relative-destination -- a full load: no signed-in page stays in the router's cache
  if (response.status === 401) window.location.assign("/admin/login?next=/admin");
  const json = await response.json().catch(() => ({}));
  return { ok: response.ok, status: response.status, body: json };
}

export type Answer = Awaited<ReturnType<typeof send>>;

/** A form field's number, or undefined when left empty (the API then keeps its default). */
export const numberOr = (value: FormDataEntryValue | null) => (value === null || value === "" ? undefined : Number(value));

/**
 * Runs `task` now, then `intervalMs` after each run ends: under load an answer can take longer than
 * the interval, and overlapping polls would pile up and land out of order. Returns the stop.
 */
export function repeat(task: (signal: AbortSignal) => Promise<void>, intervalMs: number): () => void {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const tick = async () => {
    await task(controller.signal).catch(() => undefined);
    if (!controller.signal.aborted) timer = setTimeout(tick, intervalMs);
  };
  void tick();
  return () => {
    controller.abort();
    clearTimeout(timer);
  };
}
