import { RunNotFoundError } from "../runs/errors";
import { SaleNotFoundError } from "../timeline/errors";

/** The second argument of a route handler under a `[id]` segment. */
export interface IdRouteContext {
  readonly params: Promise<{ id: string }>;
}

/** Reads a positive integer id from route params; anything else is a record that does not exist. */
async function idFrom(params: IdRouteContext["params"], notFound: (id: string) => Error): Promise<number> {
  const { id } = await params;
  const value = Number(id);
  if (!/^\d{1,9}$/.test(id) || value <= 0) throw notFound(id);
  return value;
}

export const runIdFrom = (params: IdRouteContext["params"]) => idFrom(params, (id) => new RunNotFoundError(id));
export const saleIdFrom = (params: IdRouteContext["params"]) => idFrom(params, (id) => new SaleNotFoundError(id));
