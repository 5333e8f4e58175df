import { cookies } from "next/headers";
import { getEnv } from "@/lib/env";
import { isFromThisMachine } from "@/lib/http/client-address";
import { HttpError, errorResponse, methodNotAllowed } from "@/lib/http/errors";
import { localeOfRequest } from "@/lib/i18n/locales";
import { readJsonBody } from "@/lib/http/read-json";
import { queuedMsOf } from "@/lib/http/request-start";
import { getLog, requestIdOf } from "@/lib/log";
import { buy } from "@/lib/checkout";
import { buyCreateSchema } from "@/lib/validations/buy";
import { storeCall } from "@/lib/store-call";
import { BUYER_COOKIE, buyerFromCookie, hasJoined, isHumanBuyer } from "@/lib/workshop/buyers";

export const dynamic = "force-dynamic";

/** Buy one unit of goods:001 under the active lock strategy. Every answer names the instance that served it. */
export async function POST(request: Request): Promise<Response> {
  const instance = getEnv().APP_INSTANCE;
  const requestId = requestIdOf(request);
  const headers = { "x-instance": instance, "x-request-id": requestId };
  const startedAt = performance.now();
  const queuedMs = queuedMsOf(request);
  const arrivedAt = Date.now() - queuedMs;
  const done = (response: Response, fields: Record<string, unknown>) => {
    getLog().info({ requestId, status: response.status, ms: Math.round(performance.now() - startedAt), queuedMs, ...fields }, "purchase");
    return response;
  };
  try {
    const body = buyCreateSchema.parse(await readJsonBody(request));
    // A student's phone buys as the buyer its workshop cookie names, whatever the body says: the
    // per-buyer limit and the one-order rule hold for the person, not for a string they send.
    const person = buyerFromCookie((await cookies()).get(BUYER_COOKIE)?.value);
    if (!person && isHumanBuyer(body.buyer)) throw new HttpError(422, "invalid_buyer", "buyer ids starting with human- are handed out by POST /api/workshop/join, in a cookie");
    // From beyond this machine (a phone on the LAN) the buyer is the person who joined, never a
    // string in the body: a shell loop of invented ids would otherwise sweep a one-per-buyer drop.
    if (!person && !isFromThisMachine(request)) {
      throw new HttpError(401, "join_first", "join the workshop first (POST /api/workshop/join with your name): purchases from the LAN buy as the person who joined", { reason: "not_joined" });
    }
    if (person && !(await storeCall(() => hasJoined(person)))) {
      throw new HttpError(401, "join_first", "this store does not know your workshop cookie (the store was restarted, or the cookie was made up): join again", { reason: "unknown_cookie" });
    }
    const input = { ...body, buyer: person ?? body.buyer };
    const receipt = await buy(input, { arrivedAt });
    return done(Response.json({ status: "bought", ...receipt }, { status: 201, headers }), {
      code: "bought", buyer: input.buyer, unit: receipt.order.unit, order: receipt.order.id, strategy: receipt.strategy,
    });
  } catch (error) {
    const response = errorResponse(error, { instance }, localeOfRequest(request));
    response.headers.set("x-instance", instance);
    response.headers.set("x-request-id", requestId);
    return done(response, { code: (error as { code?: string }).code ?? "error", reason: (error as Error).message?.slice(0, 300) });
  }
}

export const GET = methodNotAllowed("POST");
export const PUT = methodNotAllowed("POST");
export const PATCH = methodNotAllowed("POST");
export const DELETE = methodNotAllowed("POST");
