import { createHash } from "node:crypto";
import { getEnv } from "@/lib/env";
import { clientAddress, isFromThisMachine } from "@/lib/http/client-address";
import { errorChain } from "@/lib/errors";
import { HttpError, errorAnswer, type JsonAnswer } from "@/lib/http/errors";
import { pagesApiRoute } from "@/lib/http/pages-api";
import { readNodeJsonBody } from "@/lib/http/read-json";
import { queuedMsOf } from "@/lib/http/request-start";
import { localeOfRequest } from "@/lib/i18n/locales";
import { getLog, requestIdOf } from "@/lib/log";
import { buy } from "@/lib/checkout";
import { buyCreateSchema } from "@/lib/validations/buy";
import { storeCall } from "@/lib/store-call";
import { BUYER_COOKIE, HUMAN_PREFIX, buyerFromCookie, getPerson, isHumanBuyer } from "@/lib/workshop/buyers";

// A Pages Router route: in a hall every phone buys in the same second (lib/http/pages-api.ts says why).
// Next reads this object from the file's text: it must be written out here. The route reads its own
// body (Next's parser answers a bad one in plain text), and a stream is not counted against a size.
export const config = { api: { bodyParser: false, responseLimit: false } };

/**
 * A person's buyer id is their workshop cookie: the log keeps a short hash of it (enough to follow one
 * person's purchases), never the cookie itself. A load run's buyer ids are kept as they are.
 */
function loggedBuyer(buyer: string): string {
  return isHumanBuyer(buyer) ? `${HUMAN_PREFIX}#${createHash("sha256").update(buyer).digest("hex").slice(0, 10)}` : buyer;
}

/**
 * The person a cookie names must have joined, and from the LAN must buy from the address they joined
 * from: a laptop that joined from thirty addresses cannot spend thirty people's turns from one.
 */
async function checkPerson(person: string, request: Parameters<typeof clientAddress>[0]): Promise<void> {
  const { joined, address } = await storeCall(() => getPerson(person));
  if (!joined) {
    throw new HttpError(401, "join_first", "this store does not know your workshop cookie (the store was restarted, the instructor removed you, or the cookie was made up): join again", { reason: "unknown_cookie" });
  }
  if (!isFromThisMachine(request) && address !== clientAddress(request)) {
    throw new HttpError(403, "joined_elsewhere", "this workshop cookie joined from another network address: join again from this phone's network");
  }
}

/** Buy one unit of goods:001 under the active lock strategy. Every answer names the instance that served it. */
export default pagesApiRoute({
  async POST(request) {
    const instance = getEnv().APP_INSTANCE;
    const requestId = requestIdOf(request);
    const headers = { "x-instance": instance, "x-request-id": requestId };
    const startedAt = performance.now();
    const queuedMs = queuedMsOf(request);
    const arrivedAt = Date.now() - queuedMs;
    const done = (answer: JsonAnswer, fields: Record<string, unknown>): JsonAnswer => {
      getLog().info({ requestId, status: answer.status, ms: Math.round(performance.now() - startedAt), queuedMs, ...fields }, "purchase");
      return { ...answer, headers: { ...answer.headers, ...headers } };
    };
    try {
      const body = buyCreateSchema.parse(await readNodeJsonBody(request, request.node));
      // A student's phone buys as the buyer its workshop cookie names, whatever the body says: the
      // per-buyer limit and the one-order rule hold for the person, not for a string they send.
      const person = buyerFromCookie(request.cookie(BUYER_COOKIE));
      if (!person && isHumanBuyer(body.buyer)) throw new HttpError(422, "invalid_buyer", "buyer ids starting with human- are handed out by POST /api/workshop/join, in a cookie");
      // From beyond this machine (a phone on the LAN) the buyer is the person who joined, never a
      // string in the body: a shell loop of invented ids would otherwise sweep a one-per-buyer drop.
      if (!person && !isFromThisMachine(request)) {
        throw new HttpError(401, "join_first", "join the workshop first (POST /api/workshop/join with your name): purchases from the LAN buy as the person who joined", { reason: "not_joined" });
      }
      if (person) await checkPerson(person, request);
      const input = { ...body, buyer: person ?? body.buyer };
      const receipt = await buy(input, { arrivedAt });
      return done({ status: 201, body: { status: "bought", ...receipt } }, {
        code: "bought", buyer: loggedBuyer(input.buyer), unit: receipt.order.unit, order: receipt.order.id, strategy: receipt.strategy,
      });
    } catch (error) {
      // The answer says what happened by its code; the log line says it in the error's own words,
      // causes and all (a host and port, a driver's message: never the public's to read).
      return done(errorAnswer(error, { instance }, localeOfRequest(request), { logged: true }), {
        code: (error as { code?: string }).code ?? "error", reason: errorChain(error).slice(0, 500),
      });
    }
  },
});
