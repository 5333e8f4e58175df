import Link from "next/link";
import { getTranslations } from "next-intl/server";
import { LOCALE_NAMES, type Locale } from "@/lib/i18n/locales";
import { LocaleSwitcher } from "./locale-switcher";

/**
 * The header of every page, in the language the page shows (`locale`); the switcher shows the
 * person's own choice (`personal`), and says so when the instructor pinned the room's language.
 */
export async function SiteHeader(props: { locale: Locale; personal: Locale; pinned?: Locale }) {
  const t = await getTranslations({ locale: props.locale, namespace: "common" });
  return (
    <header className="site-header">
      <Link href="/" className="brand">Lock Lab</Link>
      <nav>
        <Link href="/">{t("store")}</Link>
        <Link href="/admin">{t("admin")}</Link>
        <LocaleSwitcher
          value={props.personal}
          label={t("language")}
          {...(props.pinned && props.pinned !== props.personal ? { pinnedNote: t("pinned", { language: LOCALE_NAMES[props.pinned] }) } : {})}
        />
      </nav>
    </header>
  );
}
