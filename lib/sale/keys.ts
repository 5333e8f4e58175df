/** Redis keys on node 1. The stock key's name is part of the lesson and never changes. */
export const SKU = "goods:001";
export const STOCK_KEY = SKU;
export const CONFIG_KEY = "locklab:config";
export const SALE_KEY = "locklab:sale";

export const saleCounterKeys = (saleId: number) => ({
  holders: `locklab:sale:${saleId}:holders`,
  peak: `locklab:sale:${saleId}:peak`,
  lockLost: `locklab:sale:${saleId}:lock-lost`,
  /** Highest fencing token the store has accepted (token-fencing). */
  fence: `locklab:sale:${saleId}:fence`,
  staleRefused: `locklab:sale:${saleId}:stale-refused`,
  fenceLog: `locklab:sale:${saleId}:fence-log`,
});
