import { getLocale } from "next-intl/server";
import type { ReactNode } from "react";
import { LanguageProvider } from "../language-provider";
import { SiteHeader } from "../site-header";

/** The admin pages in the instructor's own language (the projector's content follows a pinned room language: live/page.tsx). */
export default async function AdminLayout({ children }: { children: ReactNode }) {
  const locale = await getLocale();
  return (
    <LanguageProvider locale={locale}>
      <SiteHeader locale={locale} personal={locale} />
      <main>{children}</main>
    </LanguageProvider>
  );
}
