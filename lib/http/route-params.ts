import { RunNotFoundError } from "../runs/errors";

/** Reads a positive integer id from route params; anything else is a run that does not exist. */
export async function runIdFrom(params: Promise<{ id: string }>): Promise<number> {
  const { id } = await params;
  const value = Number(id);
  if (!/^\d{1,9}$/.test(id) || value <= 0) throw new RunNotFoundError(Number.NaN);
  return value;
}
