"use client";

import { useRouter } from "next/navigation";
import { useTransition } from "react";
import { LOCALES, LOCALE_COOKIE, LOCALE_COOKIE_MAX_AGE_S, LOCALE_NAMES, type Locale } from "@/lib/i18n/locales";

/**
 * The language switcher on every page: the choice is a cookie every page and API route reads
 * (lib/i18n/locales.ts), and the page is rendered again in it. While the instructor has pinned the
 * room's language, the store and the projector keep showing that one: `pinnedNote` says so.
 */
export function LocaleSwitcher(props: { value: Locale; label: string; pinnedNote?: string }) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();

  function choose(locale: string) {
    document.cookie = `${LOCALE_COOKIE}=${encodeURIComponent(locale)}; path=/; max-age=${LOCALE_COOKIE_MAX_AGE_S}; samesite=lax`;
    startTransition(() => router.refresh());
  }

  return (
    <span className="locale-switcher">
      <select aria-label={props.label} value={props.value} disabled={pending} onChange={(event) => choose(event.target.value)} data-testid="locale-switcher">
        {LOCALES.map((locale) => (
          <option key={locale} value={locale} lang={locale}>{LOCALE_NAMES[locale]}</option>
        ))}
      </select>
      {props.pinnedNote && <span className="muted small" data-testid="locale-pinned"> {props.pinnedNote}</span>}
    </span>
  );
}
