"use client";

import { useEffect } from "react";
import type { Locale } from "@/lib/i18n/locales";

/**
 * A room page in the room's language, not the person's: the document says so once the page runs
 * (its `lang`, which screen readers and the browser's fonts and translation offer go by, and its
 * title). The root layout renders `<html lang>` in the person's own language, before the part of
 * the site is known; the page's own content carries the room's `lang` from the server already.
 */
export function DocumentLanguage({ locale, title }: { locale: Locale; title: string }) {
  useEffect(() => {
    const html = document.documentElement;
    const before = { lang: html.lang, title: document.title };
    html.lang = locale;
    document.title = title;
    return () => {
      html.lang = before.lang;
      document.title = before.title;
    };
  }, [locale, title]);
  return null;
}
