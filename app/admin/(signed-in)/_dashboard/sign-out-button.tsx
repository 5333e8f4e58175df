"use client";

import { useTranslations } from "next-intl";
import { useState } from "react";
import { send } from "./api";

/** Ends the admin session, then loads the sign-in page afresh (no signed-in page stays cached). */
export function SignOutButton() {
  const t = useTranslations("dashboard");
  const [pending, setPending] = useState(false);

  async function signOut() {
    setPending(true);
    try {
      await send("DELETE", "/api/admin/session");
      // eslint-disable-next-line @next/next/no-location-assign-relative-destination -- a full load, on purpose (above)
      window.location.assign("/admin/login");
    } catch {
      setPending(false);
    }
  }

  return (
    <button type="button" onClick={signOut} disabled={pending} aria-busy={pending}>
      {pending ? t("signingOut") : t("signOut")}
    </button>
  );
}
