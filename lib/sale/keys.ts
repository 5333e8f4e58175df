/** Redis keys on node 1. The stock key's name is part of the lesson and never changes. */
export const SKU = "goods:001";
export const STOCK_KEY = SKU;
export const CONFIG_KEY = "locklab:config";
export const SALE_KEY = "locklab:sale";
/** Sales that have reservations waiting for their order (the reconciler's work list). */
export const PENDING_SALES_KEY = "locklab:pending-sales";

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

/** The Redis stream of one sale's events (node 1, capped): the holder timeline's record (lib/timeline). */
export const eventStreamKey = (saleId: number) => `locklab:sale:${saleId}:events`;
/** Roughly how many events the stream keeps (XADD MAXLEN ~). */
export const STREAM_CAP = 60_000;
/** A stream whose sale was replaced or kept in Postgres lives this long in Redis. */
export const TIMELINE_STREAM_TTL_S = 24 * 60 * 60;
