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

