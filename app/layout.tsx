import type { Metadata } from "next";
import { getLocale, getTranslations } from "next-intl/server";
import type { ReactNode } from "react";
import "./globals.css";

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations("metadata");
  return { title: t("title"), description: t("description") };
}

/**
 * The document, in the person's own language. Each part of the site brings its header and its
 * messages (app/(store)/layout.tsx, app/admin/layout.tsx): the store shows the room's language
 * when the instructor pinned one, the admin pages the person's.
 */
export default async function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang={await getLocale()}>
      <body>{children}</body>
    </html>
  );
}
