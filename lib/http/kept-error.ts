import type { KeptError } from "../errors";
import type { Locale } from "../i18n/locales";
import { humanMessage } from "./errors";

/**
 * A record's kept error (lib/errors.ts, keptError) said in `locale`, by its code; one with no code
 * of ours (a bug, a library's own) stays as it was said.
 */
export function keptErrorText(kept: Partial<KeptError>, locale: Locale): string | undefined {
  return kept.error && kept.errorCode ? humanMessage(kept.errorCode, kept.error, { ...kept.errorValues }, locale) : kept.error;
}

/** A record and its parts (a lab run and its cases) with each kept error said in `locale`. */
export function withKeptErrorsIn<T extends Partial<KeptError> & { readonly cases: readonly (Partial<KeptError> & object)[] }>(record: T, locale: Locale): T {
  return { ...record, error: keptErrorText(record, locale), cases: record.cases.map((part) => ({ ...part, error: keptErrorText(part, locale) })) };
}
