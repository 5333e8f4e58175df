import { AppError } from "../errors";

export class SoldOutError extends AppError {
  override name = "SoldOutError";
  readonly status = 409;
  readonly code = "sold_out";
  constructor(sku: string) {
    super(`${sku} is sold out`);
  }
}

export class UnknownProductError extends AppError {
  override name = "UnknownProductError";
  readonly status = 404;
  readonly code = "not_found";
  constructor(sku: string) {
    super(`no product ${sku} is on sale`);
  }
}

/** Redis node 1 or PostgreSQL did not answer; nothing was sold, or the unit was given back. */
export class StoreUnavailableError extends AppError {
  override name = "StoreUnavailableError";
  readonly status = 503;
  readonly code = "unavailable";
  override readonly retryAfterS = 1;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** The sale allows one order per buyer, and this buyer has one: nothing was taken. */
export class OnePerBuyerError extends AppError {
  override name = "OnePerBuyerError";
  readonly status = 409;
  readonly code = "one_per_buyer";
  override readonly ruleRefusal = true;
  constructor(buyer: string) {
    super(`${buyer} already has an order in this sale, which allows one per buyer`);
  }
}
