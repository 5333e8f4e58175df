import en from "../../messages/en.json";
import ja from "../../messages/ja.json";
import ko from "../../messages/ko.json";
import zhCN from "../../messages/zh-CN.json";
import type { Locale } from "./locales";

/**
 * Every text a person reads, one file per language in messages/ (ICU: plurals, selects, numbers),
 * English the reference. The type makes a missing key in another language a compile error;
 * tests/unit/i18n-messages.test.ts also refuses an extra key or an untranslated value. The words
 * the translations use for the lesson's terms are each language's glossary
 * (messages/glossary.<locale>.md).
 */
export type Messages = typeof en;

export const MESSAGES: Readonly<Record<Locale, Messages>> = Object.freeze({ en, ko, ja, "zh-CN": zhCN });

export function messagesFor(locale: Locale): Messages {
  return MESSAGES[locale];
}
