import { getLocale } from "next-intl/server";
import { cache } from "react";
import type { Locale } from "@/lib/i18n/locales";
import { getCurrentSale } from "@/lib/sale/sale";

/** The language a room page (the store, the projector) shows, and the drop's pinned one if any. */
export interface Room {
  readonly locale: Locale;
  readonly pinned?: Locale;
}

/**
 * The room's language for this request: the language the instructor pinned for the current drop,
 * else the person's own (the switcher's cookie, else Accept-Language, else English). Read once
 * per request (layout and page share it). Redis not answering pins nothing: the page's own read
 * fails and says so.
 */
export const getRoom = cache(async (): Promise<Room> => {
  const [personal, pinned] = await Promise.all([getLocale(), getCurrentSale().then((sale) => sale.locale, () => undefined)]);
  return pinned ? { locale: pinned, pinned } : { locale: personal };
});
