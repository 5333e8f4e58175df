import { pagesApiRoute } from "@/lib/http/pages-api";
import { localeOfRequest } from "@/lib/i18n/locales";
import { writeLiveEvents } from "@/lib/workshop/sse";

// A Pages Router route: a hall holds a thousand of these streams (lib/http/pages-api.ts says why).
// Next reads this object from the file's text: it must be written out here. The route reads its own
// body (Next's parser answers a bad one in plain text), and a stream is not counted against a size.
export const config = { api: { bodyParser: false, responseLimit: false } };

/** Server-sent events for the store's pages: stock, holders, the drop and who got one, on every change. */
export default pagesApiRoute({
  GET(request, response) {
    // The stream's one worded event (`unavailable`) is said in the phone's language.
    writeLiveEvents(response, false, localeOfRequest(request));
    return undefined;
  },
});
