/**
 * The one rule for state that outlives a call. Next.js loads one module more than once in a
 * process — once per bundle (route handlers, pages, instrumentation) — so module-level state exists
 * once per bundle. That is right for everything but what holds the outside world: a connection
 * pool made twice holds twice the connections, a subscriber twice the subscriptions, a timer runs
 * twice, a metrics registry counts half. So:
 *
 * - what holds a connection, a subscription or a timer (clients, pools, the metrics registry, the
 *   live hub, the timeline recorder, the reconciler's timer, the live signal's throttle) lives here,
 *   on globalThis, one per process;
 * - everything else stays module-level, one per bundle — the strategies, the local line and queue,
 *   caches, breakers. Those run code that throws the app's own error classes, and each bundle has
 *   its own copy of every class: an object made by one bundle throws errors that `instanceof` in
 *   another does not recognise (shared strategies answered buyers 500 instead of 423). Every
 *   purchase enters through the one route bundle, so its line is whole there.
 */
const slots = globalThis as typeof globalThis & Record<symbol, unknown>;

/** Each name's symbol, made once: getRedis() alone asks for its slot several times a purchase. */
const keys = new Map<string, symbol>();

function keyOf(name: string): symbol {
  let key = keys.get(name);
  if (key === undefined) keys.set(name, (key = Symbol.for(`locklab.${name}`)));
  return key;
}

/**
 * The process's one `T` under `name`, made by `create` on first use (`create` must not return
 * undefined). One lookup on globalThis and no string built per call: at ~40 calls a purchase, the
 * template string, Symbol.for and a second lookup cost an app instance ~10 µs a purchase
 * (docs/benchmarks.md, "What the timeline's recording cost").
 */
export function processSingleton<T>(name: string, create: () => T): T {
  const key = keyOf(name);
  const made = slots[key];
  if (made !== undefined) return made as T;
  return (slots[key] = create());
}

/** Forgets a singleton (a client closed for good): the next use makes a new one. */
export function forgetProcessSingleton(name: string): void {
  delete slots[keyOf(name)];
}
