import type { LockObservation, LockStep } from "../locks/types";

/**
 * How the purchase tells the rest of the store what it is doing, the way a lock tells its caller
 * through `onStep`/`onObserve`: the purchase emits, and each feature that cares — the lab's
 * faults, the holder timeline, the metrics, the live pages, the sale's liveness — listens, wired in
 * one place (lib/checkout.ts). The purchase knows none of them. Every hook is optional; none may
 * change what the purchase does except by delaying it (`prepare`, `step`, `lockStep` are awaited).
 */

export interface PurchaseReceipt {
  readonly order: {
    readonly id: number;
    readonly sku: string;
    readonly buyer: string;
    readonly saleId: number;
    /** The unit sold (the stock the buyer read). */
    readonly unit: number;
    readonly createdAt: string;
  };
  readonly stockLeft: number;
  readonly strategy: string;
  readonly instance: string;
}

export interface PurchaseArrival {
  /**
   * When the request arrived (Date.now() clock): nginx's stamp (lib/http/request-start.ts), or the
   * handler's start. The buyer's wait timeout counts from here. @default the call's start
   */
  readonly arrivedAt?: number;
}

/** Named points of the purchase where a listener may hold it (the lab delays or freezes there). */
export const PURCHASE_STEPS = [
  /** Inside the critical section, the stock read: a holder killed here dies holding the lock. */
  "in-critical-section",
  /** After the lease check, just before the write: a pause here is what only a fencing token catches. */
  "before-write",
  /** Between the stock write and the order insert: a crash here leaves a reservation to settle. */
  "before-order-insert",
] as const;
export type PurchaseStep = (typeof PURCHASE_STEPS)[number];

/** The buyer's turn at the lock, as the holder sees it. */
export type LockTurn =
  | { readonly kind: "asked" }
  /** `leaseEndsAt`: when the lease runs out, on the performance.now() clock. */
  | { readonly kind: "acquired"; readonly fencingToken?: number; readonly leaseEndsAt?: number }
  | { readonly kind: "released" | "busy" | "lost" | "unavailable" };

/** Who the purchase is, once it has read its sale and strategy. */
export interface PurchaseContext {
  readonly saleId: number;
  readonly buyer: string;
  readonly instance: string;
  readonly strategy: string;
  /** The id its stock reads and writes are recorded under in the sale's event stream; "" when recording is off. */
  readonly holder: string;
}

/** How the purchase ended: its receipt, or what it was refused with. */
export interface PurchaseResult {
  readonly strategy: string;
  /** Absent when the purchase failed before it read its sale. */
  readonly saleId?: number;
  readonly receipt?: PurchaseReceipt;
  readonly error?: unknown;
}

export interface PurchaseHooks {
  /** Awaited beside the purchase's own reads (config, sale, the buyer's limit): what it reads rides their round trip. */
  readonly prepare?: () => Promise<void>;
  readonly begin?: (context: PurchaseContext) => void;
  /** Awaited at each purchase step. */
  readonly step?: (step: PurchaseStep) => void | Promise<void>;
  /** Awaited at each step of the lock's own work (the lock's `onStep`). */
  readonly lockStep?: (step: LockStep) => void | Promise<void>;
  /** What the lock did that its holder cannot see (the lock's `onObserve`): renewals, Redlock's votes. */
  readonly observe?: (observation: LockObservation) => void;
  readonly lock?: (turn: LockTurn) => void;
  /** How long the buyer waited for the lock and held it (ms), once it leaves the critical section. */
  readonly lockTimes?: (waitMs: number, holdMs: number) => void;
  /** The sold unit's order is recorded. */
  readonly ordered?: (unit: number) => void;
  /** Something a live page shows moved (the stock, the holders inside). */
  readonly changed?: () => void;
  readonly ended?: (result: PurchaseResult) => void;
}
