"use client";

import { useTranslations } from "next-intl";
import { useCallback } from "react";
import { isGatewayCode } from "@/lib/i18n/gateway";

/**
 * An error answer's text for a page: what nginx answered by itself (its limits, no instance
 * answering: no app saw the request, so its message is English) said from the messages by code;
 * the app's own message, already in the reader's language, as it came; else `fallback`.
 */
export function useErrorText(): (body: { readonly code?: unknown; readonly message?: unknown } | null | undefined, fallback: string) => string {
  const tc = useTranslations("common");
  // The same function while the language is: an effect may depend on it.
  return useCallback((body, fallback) => {
    if (isGatewayCode(body?.code)) return tc(`gateway.${body.code}`);
    return typeof body?.message === "string" && body.message ? body.message : fallback;
  }, [tc]);
}
