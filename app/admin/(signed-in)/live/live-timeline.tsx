"use client";

import { useLocale, useTranslations } from "next-intl";
import { useEffect, useRef, useState } from "react";
import { LOCALE_HEADER } from "@/lib/i18n/locales";
import type { TimelineView } from "@/lib/timeline/view";
import { HolderTimeline } from "../sales/[id]/timeline/holder-timeline";
import { useErrorText } from "../../../use-error-text";

/** The timeline is read again at most this often, however fast the events come. */
const REFETCH_MS = 1000;

/**
 * The current sale's holder timeline on the projector. It does not poll: it is read again when the
 * projector's server events say the sale moved (`changeKey`), at most once a second. A new drop (a
 * new sale) gets a new one: the projector keys it by the sale.
 */
export function LiveTimeline({ saleId, changeKey }: { saleId: number; changeKey: string }) {
  const t = useTranslations();
  const errorText = useErrorText();
  // The room's language (the projector's), for the server's own error messages too.
  const locale = useLocale();
  const [view, setView] = useState<TimelineView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const lastFetch = useRef(0);

  useEffect(() => {
    let current = true;
    const wait = Math.max(0, lastFetch.current + REFETCH_MS - Date.now());
    const timer = setTimeout(() => {
      lastFetch.current = Date.now();
      fetch(`/api/admin/sales/${saleId}/timeline`, { cache: "no-store", headers: { [LOCALE_HEADER]: locale } })
        .then(async (response) => {
          const body = await response.json();
          if (!current) return;
          if (response.ok) {
            setView(body as TimelineView);
            setError(null);
          } else setError(errorText(body, t("common.serverAnswered", { status: response.status })));
        })
        .catch(() => current && setError(t("common.serverUnreachable")));
    }, wait);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [saleId, changeKey, t, errorText, locale]);

  if (error && !view) return <p className="notice error">{error}</p>;
  if (!view) return <p className="muted">{t("projector.loadingTimeline")}</p>;
  return <HolderTimeline key={saleId} initial={view} poll={false} stacked />;
}
