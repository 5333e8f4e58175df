"use client";

import Link from "next/link";
import { useTranslations } from "next-intl";
import { RetryButton } from "../retry-button";

/** An admin page that cannot be rendered: a backing server is down, or the stack is stopping. */
export default function AdminError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  const t = useTranslations();
  return (
    <section className="card" role="alert" data-testid="admin-error">
      <h1>{t("errors.adminTitle")}</h1>
      <p>{t.rich("errors.adminBody", { strong: (chunks) => <strong>{chunks}</strong> })}</p>
      {error.digest && <p className="muted">{t("common.reference", { digest: error.digest })}</p>}
      <div className="toolbar">
        <RetryButton reset={reset} />
        <Link href="/admin">{t("errors.backToDashboard")}</Link>
      </div>
    </section>
  );
}
