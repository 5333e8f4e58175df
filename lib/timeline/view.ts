import type { AnomalyReport } from "./anomalies";
import type { TimelineEvent } from "./events";
import type { TimelineSample } from "./sample";

/** What the admin pages and `GET /api/admin/sales/:id/timeline` show of one sale's timeline. */
export interface TimelineView {
  readonly saleId: number;
  /** The strategy the sale was started under. */
  readonly strategy: string;
  /** The strategies its orders were made under, in order, when not that one alone (the strategy was switched mid-sale). */
  readonly strategies?: readonly string[];
  /** Still recording in Redis (the sale is current and not yet kept in Postgres): poll again. */
  readonly live: boolean;
  /** Every event recorded, or fewer when `sampled`. */
  readonly events: readonly TimelineEvent[];
  /** Events recorded in all; more than `events.length` when the timeline was sampled or capped. */
  readonly recorded: number;
  /**
   * A big run keeps every event of the holders around an anomaly and a sample of the others: the
   * page says so, from these counts (a timeline kept before they were: the English sentence it kept).
   */
  readonly sampled?: TimelineSample | string;
  /** How far a client-side stamp (acquired, released…) may be off Redis' clock, in ms. */
  readonly clockErrorMs: number;
  readonly report: AnomalyReport;
  /** Workshop mode: display names of the human buyers in these events (buyer id → name). */
  readonly people?: Readonly<Record<string, string>>;
  /** The sale's accounting (lib/sale/accounting.ts), to set beside the anomalies. */
  readonly accounting: { readonly doubleSold: number; readonly lostUnits: number; readonly orders: number; readonly initialStock: number };
}
