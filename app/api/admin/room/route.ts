import { adminRoute } from "@/lib/auth/guard";
import { methodNotAllowed } from "@/lib/http/errors";
import { readJsonBody } from "@/lib/http/read-json";
import { storeCall } from "@/lib/store-call";
import { roomUpdateSchema } from "@/lib/validations/workshop";
import { getRoom, setPeoplePerAddress } from "@/lib/workshop/buyers";

export const dynamic = "force-dynamic";

/** The room: everyone who joined, the address each joined from, and how many people an address may hold. */
export const GET = adminRoute(async () => {
  return Response.json({ room: await storeCall(() => getRoom()) }, { headers: { "cache-control": "no-store" } });
});

/** How many people may join from one network address (more behind a NAT, a proxy or Docker Desktop). */
export const PUT = adminRoute(async (request) => {
  const { peoplePerAddress } = roomUpdateSchema.parse(await readJsonBody(request));
  await storeCall(() => setPeoplePerAddress(peoplePerAddress));
  return Response.json({ room: await storeCall(() => getRoom()) });
});

export const POST = methodNotAllowed("GET, PUT");
export const PATCH = methodNotAllowed("GET, PUT");
export const DELETE = methodNotAllowed("GET, PUT");
