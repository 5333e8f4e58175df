"use client";

import { useLocale, useTranslations } from "next-intl";
import { useState, type FormEvent } from "react";
import { isGatewayCode } from "@/lib/i18n/gateway";
import { LOCALE_HEADER } from "@/lib/i18n/locales";
import type { Me } from "./me";

/** A student types a display name once; the store keeps their buyer id in a cookie. */
export function JoinForm(props: { onJoined: (me: Me) => void }) {
  const t = useTranslations();
  const locale = useLocale();
  const [name, setName] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function join(event: FormEvent) {
    event.preventDefault();
    setPending(true);
    setError(null);
    try {
      const response = await fetch("/api/workshop/join", {
        method: "POST",
        // A bad name is explained in the language this page shows.
        headers: { "content-type": "application/json", [LOCALE_HEADER]: locale },
        body: JSON.stringify({ name }),
      });
      const body = await response.json().catch(() => ({}));
      const code: unknown = body.code;
      if (response.status === 201) props.onJoined({ buyer: body.buyer, name: body.name });
      else if (isGatewayCode(code)) setError(t(`common.gateway.${code}`));
      else setError(body.fieldErrors?.name?.[0] ?? body.message ?? t("common.storeAnswered", { status: response.status }));
    } catch {
      setError(t("common.storeUnreachable"));
    } finally {
      setPending(false);
    }
  }

  return (
    <form className="join-form" onSubmit={join}>
      <label htmlFor="display-name">{t("join.label")}</label>
      <div className="join-row">
        <input id="display-name" name="name" value={name} onChange={(e) => setName(e.target.value)} maxLength={24} autoComplete="nickname" required />
        <button type="submit" disabled={pending}>{t("join.join")}</button>
      </div>
      {error && <p className="field-error" role="alert">{error}</p>}
    </form>
  );
}
