import { atLockStep, atPurchaseStep, getFaults, type FaultDelays } from "./lab/faults";
import { announceChange } from "./live-signal";
import { countOutcome, observeLock, outcomeOf, type Outcome } from "./metrics";
import type { PurchaseArrival, PurchaseHooks, PurchaseReceipt } from "./purchase/hooks";
import { purchase } from "./purchase/purchase";
import { noteRefusal } from "./sale/liveness";
import { appRecorder, holderTimeline, type HolderTimeline } from "./timeline/holder-timeline";
import type { BuyCreate } from "./validations/buy";

/**
 * The purchase as the store runs it: the lesson's purchase (lib/purchase), with every feature that
 * listens to it wired here and nowhere else —
 * - the lab's faults delay the lock's steps and the purchase's (read beside the purchase's config);
 * - the holder timeline records the buyer's turn at the lock and its order;
 * - the metrics count each outcome and the lock's wait and hold;
 * - the live pages are told the stock or the holders moved;
 * - the sale's liveness hears of every buyer the lock or a server turned away.
 */
export function buy(input: BuyCreate, arrival: PurchaseArrival = {}): Promise<PurchaseReceipt> {
  return purchase(input, arrival, listeners());
}

/** Outcomes that mean the store failed the buyer, not that the sale or its rules said no. */
const TURNED_AWAY: ReadonlySet<Outcome> = new Set(["busy", "unavailable", "lock_lost", "error"]);

function listeners(): PurchaseHooks {
  let faults: FaultDelays = {};
  let timeline: HolderTimeline | undefined;
  let strategy = "unknown";
  let buyer: string | undefined;
  return {
    prepare: async () => {
      faults = await getFaults();
    },
    begin: (context) => {
      strategy = context.strategy;
      if (!context.holder) return;
      timeline = holderTimeline(appRecorder(), context.saleId, context.holder, context.instance);
      buyer = context.buyer;
    },
    step: (step) => atPurchaseStep(faults, step),
    lockStep: (step) => atLockStep(faults, step),
    observe: (observation) => timeline?.observe(observation),
    lock: (turn) => {
      if (turn.kind === "asked") timeline?.note("acquire-sent", { buyer });
      else if (turn.kind === "acquired") timeline?.note("acquired", { fencingToken: turn.fencingToken }, turn.leaseEndsAt);
      else timeline?.note(turn.kind);
    },
    lockTimes: (waitMs, holdMs) => observeLock(strategy, waitMs, holdMs),
    ordered: (unit) => timeline?.note("order", { unit }),
    changed: announceChange,
    ended: (result) => {
      const outcome: Outcome = result.error === undefined ? "bought" : outcomeOf(result.error);
      countOutcome(outcome, result.strategy);
      if (result.saleId !== undefined && TURNED_AWAY.has(outcome)) noteRefusal(result.saleId);
    },
  };
}
