"use client";

import { useRouter } from "next/navigation";
import { useEffect, useRef } from "react";
import type { Locale } from "@/lib/i18n/locales";

/**
 * A room page (the store, the projector) follows the language the instructor pins for a drop
 * without a reload: when the live snapshot's pinned language is not the one the page was rendered
 * with, the page's server components are rendered again (router.refresh keeps the client's state
 * and the event stream). Asked once per change, so a slow answer is not asked for twice.
 */
export function usePinnedLocale(rendered: Locale | null, live: Locale | undefined): void {
  const router = useRouter();
  const asked = useRef<string>(rendered ?? "");
  const wanted = live ?? "";
  useEffect(() => {
    if (wanted === (rendered ?? "")) {
      asked.current = wanted;
      return;
    }
    if (asked.current === wanted) return;
    asked.current = wanted;
    router.refresh();
  }, [wanted, rendered, router]);
}
