/**
 * The one way this codebase keeps process-wide state (clients, pools, queues, caches, timers):
 * on `globalThis`, under a name, made on first use. Next.js may load one module more than once in
 * a process — once per bundle (route handlers, server components, instrumentation) and again after
 * a dev rebuild — and module-level state would then split into copies that cannot see each other:
 * two connection pools, two local lines for one resource (two holders of one lock), a breaker that
 * one copy trips and another ignores. State kept here is one per process whatever the bundling.
 */
const slots = globalThis as typeof globalThis & Record<symbol, unknown>;

export function processSingleton<T>(name: string, create: () => T): T {
  const key = Symbol.for(`locklab.${name}`);
  if (!(key in slots)) slots[key] = create();
  return slots[key] as T;
}

/** Forgets a singleton (a test, or a client closed for good): the next use makes a new one. */
export function forgetProcessSingleton(name: string): void {
  delete slots[Symbol.for(`locklab.${name}`)];
}
