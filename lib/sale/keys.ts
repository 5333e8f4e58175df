/** Redis keys on node 1. The stock key's name is part of the lesson and never changes. */
export const SKU = "goods:001";
export const STOCK_KEY = SKU;
export const CONFIG_KEY = "locklab:config";
export const SALE_KEY = "locklab:sale";
/** Sales that have reservations waiting for their order (the reconciler's work list). */
export const PENDING_SALES_KEY = "locklab:pending-sales";

/** The lock key of a resource, for every strategy that keeps its lock in Redis. */
export const lockKey = (resource: string) => `lock:${resource}`;

export const saleCounterKeys = (saleId: number) => ({
  holders: `locklab:sale:${saleId}:holders`,
  peak: `locklab:sale:${saleId}:peak`,
  lockLost: `locklab:sale:${saleId}:lock-lost`,
  /** Highest fencing token the store has accepted (token-fencing, pg-for-update). */
  fence: `locklab:sale:${saleId}:fence`,
  staleRefused: `locklab:sale:${saleId}:stale-refused`,
  fenceLog: `locklab:sale:${saleId}:fence-log`,
  /** Reservations: field = reservation id, value = JSON {unit, buyer, instance, …, state}. */
  pending: `locklab:sale:${saleId}:pending`,
  /** Counters of the reconciler's outcomes. */
  givenBack: `locklab:sale:${saleId}:given-back`,
  givebackFailed: `locklab:sale:${saleId}:giveback-failed`,
  reconciled: `locklab:sale:${saleId}:reconciled`,
  /** Buyers with a unit taken, when the sale allows one order per buyer (written under the lock). */
  buyers: `locklab:sale:${saleId}:buyers`,
  /** Buyers turned away since the stock last moved (./liveness.ts). */
  liveness: `locklab:sale:${saleId}:liveness`,
});
