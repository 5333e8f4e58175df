import { getLocale } from "next-intl/server";
import type { ReactNode } from "react";
import { messagesFor } from "@/lib/i18n/messages";
import { DocumentLanguage } from "../document-language";
import { LanguageProvider } from "../language-provider";
import { getRoom } from "../room-locale";
import { SiteHeader } from "../site-header";

/** The store in the room's language: the drop's pinned one, else the person's own. */
export default async function StoreLayout({ children }: { children: ReactNode }) {
  const [room, personal] = await Promise.all([getRoom(), getLocale()]);
  return (
    <LanguageProvider locale={room.locale} namespaces={["common", "errors", "store", "join", "winners"]}>
      <DocumentLanguage locale={room.locale} title={messagesFor(room.locale).metadata.title} personal={personal} personalTitle={messagesFor(personal).metadata.title} />
      <SiteHeader locale={room.locale} personal={personal} {...(room.pinned ? { pinned: room.pinned } : {})} />
      <main>{children}</main>
    </LanguageProvider>
  );
}
