/**
 * The languages Lock Lab speaks: English and the languages of the articles it grew from. A person's
 * own language is, in order: the language chosen with the switcher (a cookie), then the browser's
 * Accept-Language, then English. The room's language, when the instructor pins one for a drop,
 * comes before both on the store and the projector (lib/workshop/room-locale.ts). Nothing here
 * reads Redis or Next: it is plain parsing, shared by pages, route handlers and tests.
 */
export const LOCALES = ["en", "ko", "ja", "zh-CN"] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = "en";

/** The switcher's choice, one year, readable by every page and API route. */
export const LOCALE_COOKIE = "locklab_locale";
export const LOCALE_COOKIE_MAX_AGE_S = 365 * 24 * 60 * 60;

/**
 * The language a page of ours is showing, sent with its API calls (buy, join, sign-in, the drop):
 * the API answers in the language the person is reading, the room's pinned one included.
 */
export const LOCALE_HEADER = "x-locklab-locale";

/** Each language by its own name, as the switcher lists it (a name, not a message: never translated). */
export const LOCALE_NAMES: Readonly<Record<Locale, string>> = Object.freeze({
  en: "English",
  ko: "한국어",
  ja: "日本語",
  "zh-CN": "中文（简体）",
});

export function isLocale(value: unknown): value is Locale {
  return typeof value === "string" && (LOCALES as readonly string[]).includes(value);
}

/**
 * One language tag of ours for a BCP 47 tag, or undefined: `ko-KR` → ko, `ja-JP` → ja, every
 * Chinese tag (zh, zh-CN, zh-Hans, zh-TW, zh-HK…) → zh-CN, the only Chinese we have, which a reader
 * of traditional characters reads more easily than English; `en-*` → en.
 */
export function localeOfTag(tag: string): Locale | undefined {
  const primary = tag.trim().toLowerCase().split(/[-_]/)[0];
  if (primary === "zh") return "zh-CN";
  return LOCALES.find((locale) => locale.toLowerCase() === primary);
}

/**
 * The best of our languages for an Accept-Language header (`ko-KR,ko;q=0.9,en-US;q=0.8`): the
 * highest-weighted tag we speak, the earlier one on a tie; English when none is ours.
 */
export function negotiateLocale(acceptLanguage: string | null | undefined): Locale {
  if (!acceptLanguage) return DEFAULT_LOCALE;
  const ranked = acceptLanguage
    .split(",")
    .map((part, index) => {
      const [tag = "", ...params] = part.split(";");
      const q = params.map((param) => /^\s*q\s*=\s*([\d.]+)\s*$/i.exec(param)?.[1]).find((value) => value !== undefined);
      const weight = q === undefined ? 1 : Number(q);
      return { locale: localeOfTag(tag), weight: Number.isFinite(weight) ? weight : 0, index };
    })
    .filter((entry): entry is { locale: Locale; weight: number; index: number } => entry.locale !== undefined && entry.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.index - b.index);
  return ranked[0]?.locale ?? DEFAULT_LOCALE;
}

/**
 * A cookie's value from a Cookie header (`a=1; locklab_locale=ko`). A value that is not valid
 * percent-encoding (`%`, `%E0%A4%A`: anyone can send one) is returned as it came, never thrown: it
 * names no language, so the answer falls back to Accept-Language instead of failing to be built.
 */
export function cookieValue(header: string | null, name: string): string | undefined {
  for (const pair of header?.split(";") ?? []) {
    const at = pair.indexOf("=");
    if (at > 0 && pair.slice(0, at).trim() === name) {
      const raw = pair.slice(at + 1).trim();
      try {
        return decodeURIComponent(raw);
      } catch {
        return raw;
      }
    }
  }
  return undefined;
}

/** A person's own language from what their browser sends: the switcher's cookie, else Accept-Language. */
export function personalLocale(cookie: string | undefined, acceptLanguage: string | null | undefined): Locale {
  return isLocale(cookie) ? cookie : negotiateLocale(acceptLanguage);
}

/**
 * The language an API answer's human `message` is in: the language the calling page says it shows
 * (LOCALE_HEADER: the room's, when pinned), else the person's own.
 */
/** Whatever carries a request's headers: a web Request, or a Pages Router API request (lib/http/pages-api.ts). */
export interface WithHeaders {
  readonly headers: { get(name: string): string | null };
}

export function localeOfRequest(request: WithHeaders): Locale {
  const shown = request.headers.get(LOCALE_HEADER);
  if (isLocale(shown)) return shown;
  return personalLocale(cookieValue(request.headers.get("cookie"), LOCALE_COOKIE), request.headers.get("accept-language"));
}
