"use client";

import { useEffect } from "react";
import type { Locale } from "@/lib/i18n/locales";

/**
 * A room page in the room's language, not the person's: the document says so once the page runs
 * (its `lang`, which screen readers and the browser's fonts and translation offer go by, and its
 * title). The root layout renders `<html lang>` in the person's own language (`personal`), before
 * the part of the site is known; the page's own content carries the room's `lang` from the server.
 * Rendered on every room page, pinned or not, so a change of language updates it rather than
 * unmounting it; leaving the page, it gives the document back to the person's language — only if
 * the document is still as it set it, so a render that set its own is not undone.
 */
export function DocumentLanguage({ locale, title, personal, personalTitle }: { locale: Locale; title: string; personal: Locale; personalTitle: string }) {
  useEffect(() => {
    const html = document.documentElement;
    html.lang = locale;
    document.title = title;
    return () => {
      if (html.lang === locale) html.lang = personal;
      if (document.title === title) document.title = personalTitle;
    };
  }, [locale, title, personal, personalTitle]);
  return null;
}
