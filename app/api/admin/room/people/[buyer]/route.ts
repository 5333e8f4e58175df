import { adminRoute } from "@/lib/auth/guard";
import { methodNotAllowed } from "@/lib/http/errors";
import { readJsonBody } from "@/lib/http/read-json";
import { storeCall } from "@/lib/store-call";
import { personRenameSchema } from "@/lib/validations/workshop";
import { PersonNotFoundError, buyerFromCookie, removePerson, renamePerson } from "@/lib/workshop/buyers";

export const dynamic = "force-dynamic";

interface PersonRouteContext {
  readonly params: Promise<{ buyer: string }>;
}

/** The person a path names: an id this store hands out, else nobody. */
async function personFrom(params: PersonRouteContext["params"]): Promise<string> {
  const { buyer } = await params;
  const person = buyerFromCookie(buyer);
  if (!person) throw new PersonNotFoundError(buyer);
  return person;
}

/** Removes a person from the room: their orders stay; their cookie buys nothing more and their place at their address is free. */
export const DELETE = adminRoute(async (_request, { params }: PersonRouteContext) => {
  const buyer = await personFrom(params);
  if (!(await storeCall(() => removePerson(buyer)))) throw new PersonNotFoundError(buyer);
  return Response.json({ removed: buyer });
});

/** Renames a person (a name the room should not see on the projector). */
export const PATCH = adminRoute(async (request, { params }: PersonRouteContext) => {
  const buyer = await personFrom(params);
  const { name } = personRenameSchema.parse(await readJsonBody(request));
  if (!(await storeCall(() => renamePerson(buyer, name)))) throw new PersonNotFoundError(buyer);
  return Response.json({ buyer, name });
});

export const GET = methodNotAllowed("PATCH, DELETE");
export const POST = methodNotAllowed("PATCH, DELETE");
export const PUT = methodNotAllowed("PATCH, DELETE");
