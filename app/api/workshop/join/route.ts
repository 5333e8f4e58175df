import { cookies } from "next/headers";
import { clientAddress, isFromThisMachine } from "@/lib/http/client-address";
import { methodNotAllowed, publicRoute } from "@/lib/http/errors";
import { readJsonBody } from "@/lib/http/read-json";
import { storeCall } from "@/lib/store-call";
import { joinCreateSchema } from "@/lib/validations/workshop";
import { BUYER_COOKIE, BUYER_COOKIE_MAX_AGE_S, buyerFromCookie, joinWorkshop } from "@/lib/workshop/buyers";

export const dynamic = "force-dynamic";

/** A student joins the workshop under a display name; the buyer id it gets is kept in a cookie. */
export const POST = publicRoute(async (request) => {
  const { name } = joinCreateSchema.parse(await readJsonBody(request));
  const jar = await cookies();
  // The person this phone already is, if any: joining again renames them (or moves them to this address).
  const cookie = buyerFromCookie(jar.get(BUYER_COOKIE)?.value);
  const joined = await storeCall(() => joinWorkshop(name, { address: clientAddress(request), local: isFromThisMachine(request), ...(cookie && { cookie }) }));
  jar.set(BUYER_COOKIE, joined.buyer, { httpOnly: true, sameSite: "lax", path: "/", maxAge: BUYER_COOKIE_MAX_AGE_S });
  return Response.json(joined, { status: 201 });
});

export const GET = methodNotAllowed("POST");
export const PUT = methodNotAllowed("POST");
export const PATCH = methodNotAllowed("POST");
export const DELETE = methodNotAllowed("POST");
