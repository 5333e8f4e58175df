import { AppError } from "../../errors";
import type { CurrentSale } from "../sale";

/**
 * A drop (workshop mode): a sale that opens for everyone at one moment, after a countdown every
 * phone shows. Its state lives in the sale's Redis hash, which every purchase already reads, so
 * all instances agree on it at no extra round trip: scheduled until `opensAt`, then open, closed
 * once the instructor closes it. A sale with no drop is open as always (load runs, the lab).
 * Starting and closing one is the workshop's (lib/workshop/drop.ts); refusing a purchase is this rule.
 */
export type DropState = "none" | "scheduled" | "open" | "closed";

export interface DropView {
  readonly state: DropState;
  readonly opensAt?: number;
  readonly closedAt?: number;
}

export function dropOf(sale: Pick<CurrentSale, "drop">, now = Date.now()): DropView {
  const drop = sale.drop;
  if (!drop) return { state: "none" };
  const state: DropState = drop.closedAt !== undefined ? "closed" : now < drop.opensAt ? "scheduled" : "open";
  return { state, ...drop };
}

export class DropNotOpenError extends AppError {
  override name = "DropNotOpenError";
  readonly status = 409;
  readonly code = "drop_not_open";
  override readonly ruleRefusal = true;
  override readonly retryAfterS: number;
  override readonly details: Readonly<Record<string, unknown>>;
  constructor(opensAt: number, now: number) {
    const inMs = Math.max(0, opensAt - now);
    super(`the drop opens in ${Math.ceil(inMs / 1000)} s; the Buy button wakes when the countdown reaches zero`);
    this.retryAfterS = Math.max(1, Math.ceil(inMs / 1000));
    this.details = { opensAt: new Date(opensAt).toISOString(), opensInMs: inMs };
  }
}

export class DropClosedError extends AppError {
  override name = "DropClosedError";
  readonly status = 409;
  readonly code = "drop_closed";
  override readonly ruleRefusal = true;
  constructor() {
    super("this drop is closed; wait for the instructor to start the next one");
  }
}

/** Refuses a purchase while the sale's drop is not open; a sale with no drop passes. */
export function assertDropOpen(sale: Pick<CurrentSale, "drop">, now = Date.now()): void {
  const drop = dropOf(sale, now);
  if (drop.state === "scheduled") throw new DropNotOpenError(drop.opensAt as number, now);
  if (drop.state === "closed") throw new DropClosedError();
}

