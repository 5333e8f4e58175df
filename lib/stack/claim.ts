import { lockScripts, ACQUIRED } from "../locks/scripts";
import { getRedis } from "../redis";

/**
 * One claim on the stack, held by a load run or a lab run while it uses it (lab cases stop nodes
 * and kill instances; a load run resets the sale), and by an admin's change of the sale (a switch,
 * a reset, a drop) for the moment it takes: whoever holds it, nobody else can start. It is
 * the project's own token lock — `SET NX PX` with the holder's unique token, Lua compare-and-delete
 * and compare-and-renew — not the SET NX / unconditional DEL the lab teaches against. A holder that
 * dies leaves a claim that expires by its TTL.
 */
const CLAIM_KEY = "locklab:stack-claim";
const CLAIM_CHANNEL = "locklab:released:stack-claim";

export type ClaimHolder = { readonly kind: "run" | "lab" | "change"; readonly id: number };

const tokenOf = (holder: ClaimHolder) => `${holder.kind}:${holder.id}`;

/** Takes the claim for `holder`; false when someone else holds it. */
export async function claimStack(holder: ClaimHolder, ttlMs: number): Promise<boolean> {
  return (await lockScripts(getRedis()).acquireTokenLock(CLAIM_KEY, tokenOf(holder), ttlMs)) === ACQUIRED;
}

/** Extends `holder`'s claim; false when it is no longer theirs (it expired, or another took it). */
export async function renewStackClaim(holder: ClaimHolder, ttlMs: number): Promise<boolean> {
  return (await lockScripts(getRedis()).renewTokenLock(CLAIM_KEY, tokenOf(holder), ttlMs)) === 1;
}

/** Lets go of `holder`'s claim, and only theirs. */
export async function releaseStackClaim(holder: ClaimHolder): Promise<void> {
  await lockScripts(getRedis()).releaseTokenLock(CLAIM_KEY, tokenOf(holder), CLAIM_CHANNEL);
}

/** Who holds the claim now, if anyone. */
export async function getStackClaim(): Promise<ClaimHolder | undefined> {
  const value = await getRedis().get(CLAIM_KEY);
  const match = /^(run|lab|change):(\d+)$/.exec(value ?? "");
  return match ? { kind: match[1] as ClaimHolder["kind"], id: Number(match[2]) } : undefined;
}

/**
 * Who holds the claim, as a refusal's details (the JSON body's fields): the messages of
 * `run_in_progress` and `lab_run_in_progress` name the holder from them in the reader's language.
 */
export function claimDetails(holder: ClaimHolder | undefined): { claimKind: ClaimHolder["kind"] | "none"; claimId?: number } {
  return holder ? { claimKind: holder.kind, claimId: holder.id } : { claimKind: "none" };
}

/** A sentence for the one who was refused. */
export function describeClaim(holder: ClaimHolder | undefined): string {
  if (!holder) return "another run is starting";
  if (holder.kind === "change") return "the sale is being switched, reset or dropped right now";
  return holder.kind === "run" ? `load run ${holder.id} is using the stack` : `lab run ${holder.id} is using the stack`;
}
