import { RunNotFoundError } from "../runs/errors";

/** The second argument of a route handler under a `[id]` segment. */
export interface IdRouteContext {
  readonly params: Promise<{ id: string }>;
}

/** Reads a positive integer id from route params; anything else is a run that does not exist. */
export async function runIdFrom(params: IdRouteContext["params"]): Promise<number> {
  const { id } = await params;
  const value = Number(id);
  if (!/^\d{1,9}$/.test(id) || value <= 0) throw new RunNotFoundError(id);
  return value;
}
