import { AppError } from "../../errors";

/**
 * One order per buyer (workshop drops): checked inside the critical section, under the same lock as
 * the stock, and the buyer marked by the same script that writes the stock (lib/purchase), so a
 * mark exists exactly when a unit was sold. Under a lock that does not exclude, two of one buyer's
 * taps both pass: the accounting counts buyers with two orders.
 */
export class OnePerBuyerError extends AppError {
  override name = "OnePerBuyerError";
  readonly status = 409;
  readonly code = "one_per_buyer";
  override readonly ruleRefusal = true;
  constructor(buyer: string) {
    super(`${buyer} already has an order in this sale, which allows one per buyer`);
  }
}
