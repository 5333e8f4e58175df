import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { AppError } from "./errors";
import { getEnv } from "./env";
import { getSaleStats } from "./sale/sale";
import { processSingleton } from "./process-singleton";

/**
 * The app's Prometheus metrics (`GET /api/metrics`), one registry per process
 * (lib/process-singleton.ts). Every series carries the strategy and the
 * instance; the sale's unit figures are read from the durable record (Postgres and Redis, the
 * same accounting as /api/sale) when Prometheus scrapes, never counted on the side.
 */
interface Metrics {
  readonly registry: Registry;
  readonly outcomes: Counter<"outcome" | "strategy" | "instance">;
  readonly lockWait: Histogram<"strategy" | "instance">;
  readonly lockHold: Histogram<"strategy" | "instance">;
}

/** Purchase outcomes as the API answers them (its stable codes). */
export const OUTCOMES = ["bought", "sold_out", "busy", "unavailable", "lock_lost", "refused", "error"] as const;
export type Outcome = (typeof OUTCOMES)[number];

const SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

function createMetrics(): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ instance: getEnv().APP_INSTANCE });
  const outcomes = new Counter({
    name: "locklab_purchases_total",
    help: "Purchases answered, by outcome (bought, sold_out, busy, unavailable, lock_lost, refused: a workshop rule said no, error)",
    labelNames: ["outcome", "strategy", "instance"] as const,
    registers: [registry],
  });
  const histogram = (name: string, help: string) =>
    new Histogram({ name, help, labelNames: ["strategy", "instance"] as const, buckets: SECONDS, registers: [registry] });
  const lockWait = histogram("locklab_lock_wait_seconds", "From asking for the lock to holding it");
  const lockHold = histogram("locklab_lock_hold_seconds", "From holding the lock to leaving the critical section");
  new Gauge({
    name: "locklab_sale_units",
    help: "The current sale's units from the durable record: sold, double_sold, lost, remaining, oversell (signed)",
    labelNames: ["figure", "sale", "strategy"] as const,
    registers: [registry],
    async collect() {
      const stats = await getSaleStats().catch(() => undefined);
      this.reset();
      if (!stats) return;
      const labels = (figure: string) => ({ figure, sale: String(stats.id), strategy: stats.strategy });
      this.set(labels("sold"), stats.orders);
      this.set(labels("double_sold"), stats.doubleSold);
      this.set(labels("lost"), stats.lostUnits);
      this.set(labels("remaining"), stats.remaining);
      this.set(labels("oversell"), stats.oversell);
    },
  });
  return { registry, outcomes, lockWait, lockHold };
}

export function getMetrics(): Metrics {
  return processSingleton("metrics", createMetrics);
}

const instance = () => getEnv().APP_INSTANCE;

export function countOutcome(outcome: Outcome, strategy: string): void {
  getMetrics().outcomes.inc({ outcome, strategy, instance: instance() });
}

export function observeLock(strategy: string, waitMs: number, holdMs: number): void {
  const metrics = getMetrics();
  metrics.lockWait.observe({ strategy, instance: instance() }, waitMs / 1000);
  metrics.lockHold.observe({ strategy, instance: instance() }, holdMs / 1000);
}

/** The outcome a purchase's error stands for: a rule's refusal, one of OUTCOMES by its API code, or else an error. */
export function outcomeOf(error: unknown): Outcome {
  if (!(error instanceof AppError)) return "error";
  if (error.ruleRefusal) return "refused";
  return error.code !== "refused" && (OUTCOMES as readonly string[]).includes(error.code) ? (error.code as Outcome) : "error";
}
