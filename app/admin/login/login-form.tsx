"use client";

import { useLocale, useTranslations } from "next-intl";
import { useState, type FormEvent } from "react";
import { LOCALE_HEADER } from "@/lib/i18n/locales";
import { useErrorText } from "../../use-error-text";

export function LoginForm({ next }: { next: string }) {
  const t = useTranslations();
  const errorText = useErrorText();
  const locale = useLocale();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setPending(true);
    setError(null);
    const password = String(new FormData(event.currentTarget).get("password") ?? "");
    try {
      const response = await fetch("/api/admin/session", {
        method: "POST",
        headers: { "content-type": "application/json", [LOCALE_HEADER]: locale },
        body: JSON.stringify({ password }),
      });
      if (response.ok) {
        window.location.assign(next);
        return;
      }
      const body = await response.json().catch(() => ({}));
      setError(body.code === "invalid_password" ? t("login.wrongPassword") : errorText(body, t("login.failed", { status: response.status })));
    } catch {
      setError(t("common.serverUnreachable"));
    } finally {
      setPending(false);
    }
  }

  return (
    <form onSubmit={submit} className="form">
      <label>
        {t("login.password")}
        <input name="password" type="password" autoComplete="current-password" required autoFocus />
      </label>
      <button type="submit" className="primary" disabled={pending}>{pending ? t("login.signingIn") : t("login.signIn")}</button>
      {error && <p className="notice error" role="alert">{error}</p>}
    </form>
  );
}
