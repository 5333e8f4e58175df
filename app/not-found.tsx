import Link from "next/link";
import { getLocale, getTranslations } from "next-intl/server";
import { SiteHeader } from "./site-header";

/** An address that is no page (the API answers its own 404 in JSON). */
export default async function NotFound() {
  const [locale, t] = await Promise.all([getLocale(), getTranslations("errors")]);
  return (
    <div lang={locale}>
      <SiteHeader locale={locale} personal={locale} />
      <main>
        <section className="card">
          <h1>{t("notFoundTitle")}</h1>
          <p>{t("notFoundBody")}</p>
          <Link href="/" className="button-link">{t("toStore")}</Link>
        </section>
      </main>
    </div>
  );
}
