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

export function processSingleton<T>(name: string, create: () => T): T {
  const key = Symbol.for(`locklab.${name}`);
  if (!(key in slots)) slots[key] = create();
  return slots[key] as T;
}

/** Forgets a singleton (a client closed for good): the next use makes a new one. */
export function forgetProcessSingleton(name: string): void {
  delete slots[Symbol.for(`locklab.${name}`)];
}
