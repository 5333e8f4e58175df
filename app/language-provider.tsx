import { NextIntlClientProvider } from "next-intl";
import type { ReactNode } from "react";
import type { Locale } from "@/lib/i18n/locales";
import { messagesFor, type Messages } from "@/lib/i18n/messages";

/**
 * A part of the page in one language: its `lang` (which also picks the CJK font the stack in
 * globals.css names for it) and the messages its client components read. `namespaces` sends only
 * those to the browser (the store's phones need a few).
 */
export function LanguageProvider(props: { locale: Locale; namespaces?: readonly (keyof Messages)[]; children: ReactNode; className?: string }) {
  const all = messagesFor(props.locale);
  const messages = props.namespaces ? Object.fromEntries(props.namespaces.map((name) => [name, all[name]])) : all;
  return (
    <div lang={props.locale} className={props.className}>
      <NextIntlClientProvider locale={props.locale} messages={messages}>
        {props.children}
      </NextIntlClientProvider>
    </div>
  );
}
