import { NotFoundError } from "../errors";

export class SaleNotFoundError extends NotFoundError {
  override name = "SaleNotFoundError";
  constructor(id: number | string) {
    super("sale", id);
  }
}
