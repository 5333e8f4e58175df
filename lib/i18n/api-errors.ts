import { createTranslator } from "next-intl";
import type { Locale } from "./locales";
import { messagesFor, type Messages } from "./messages";

/** `apiErrors` holds the codes' messages and, as objects, the field messages (`fields`, `issues`, `checks`). */
export type ApiErrorCode = { [Code in keyof Messages["apiErrors"]]: Messages["apiErrors"][Code] extends string ? Code : never }[keyof Messages["apiErrors"]];
export type TranslationValues = Record<string, string | number>;

/**
 * An error code's message in `locale` (messages/<locale>.json, `apiErrors`), English included, with
 * the error's values; undefined when the code has no message there or its values do not fill it.
 */
export function codeMessage(code: string, values: TranslationValues, locale: Locale): string | undefined {
  const messages = messagesFor(locale);
  if (!Object.hasOwn(messages.apiErrors, code) || typeof messages.apiErrors[code as ApiErrorCode] !== "string") return undefined;
  let failed = false;
  const t = createTranslator({ locale, messages, namespace: "apiErrors", onError: () => (failed = true) });
  const text = t(code as ApiErrorCode, values);
  return failed ? undefined : text;
}

/**
 * What the public is told of an error: its code's message in the reader's language, never the
 * error's own words — those may name a host and port or quote a driver, and go to the log
 * instead. A code with no message of ours says what `internal` says.
 */
export function publicErrorMessage(code: string, values: TranslationValues, locale: Locale): string {
  return codeMessage(code, values, locale) ?? codeMessage("internal", {}, locale) ?? "Something went wrong on our side.";
}
