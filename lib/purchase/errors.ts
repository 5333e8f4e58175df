export class SoldOutError extends Error {
  override name = "SoldOutError";
  constructor(sku: string) {
    super(`${sku} is sold out`);
  }
}

export class UnknownProductError extends Error {
  override name = "UnknownProductError";
  constructor(sku: string) {
    super(`no product ${sku} is on sale`);
  }
}

/** Redis node 1 or PostgreSQL did not answer; nothing was sold, or the unit was given back. */
export class StoreUnavailableError extends Error {
  override name = "StoreUnavailableError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
