"use client";

import { useTranslations } from "next-intl";
import { RetryButton } from "../retry-button";

/**
 * The store when a page cannot be rendered — most often Postgres or Redis node 1 not answering.
 * Nothing was bought by showing this page; the buyer can try again once the servers are back.
 */
export default function StoreError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  const t = useTranslations();
  return (
    <section className="card" role="alert" data-testid="store-error">
      <h1>{t("errors.storeTitle")}</h1>
      <p>{t("errors.storeBody")}</p>
      {error.digest && <p className="muted">{t("common.reference", { digest: error.digest })}</p>}
      <RetryButton reset={reset} />
    </section>
  );
}
