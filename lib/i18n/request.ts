import { cookies, headers } from "next/headers";
import { getRequestConfig } from "next-intl/server";
import { LOCALE_COOKIE, isLocale, personalLocale, type Locale } from "./locales";
import { messagesFor } from "./messages";

/** The person's own language for this request: the switcher's cookie, else Accept-Language, else English. */
export async function getPersonalLocale(): Promise<Locale> {
  const [jar, sent] = await Promise.all([cookies(), headers()]);
  return personalLocale(jar.get(LOCALE_COOKIE)?.value, sent.get("accept-language"));
}

/**
 * next-intl's configuration for a request (next.config.mjs names this file). No locale in the URL:
 * a page renders in the person's own language, unless it asks for another one explicitly
 * (`getTranslations({ locale })`, a nested provider) — the store and the projector do, with the
 * room's pinned language (app/room-locale.ts).
 */
export default getRequestConfig(async ({ locale }) => {
  const chosen = isLocale(locale) ? locale : await getPersonalLocale();
  return { locale: chosen, messages: messagesFor(chosen) };
});
