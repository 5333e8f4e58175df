"use client";

import { createContext, use, useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import type { SaleStats } from "@/lib/sale/sale";
import { repeat, send, type Answer } from "./api";
import { SaleCard } from "./sale-figures";
import { useErrorText } from "../../../use-error-text";

const SALE_POLL_MS = 1500;

/** The poll could not read the figures: when the card's figures were last read, and why not since. */
export interface StaleFigures {
  readonly since: number;
  readonly reason: string;
}

interface SaleState {
  sale: SaleStats;
  /** Set while the poll cannot read the figures (Postgres down, say): the card says they are old. */
  stale?: StaleFigures;
  /** Asks for the figures now (the poll does so every 1.5 s). */
  refreshSale: (signal?: AbortSignal) => Promise<void>;
  /** Sends a request whose answer carries `sale` (a reset, say) and shows it unless a later one was. */
  updateSale: (request: () => Promise<Answer>) => Promise<Answer>;
}

const SaleContext = createContext<SaleState | null>(null);

/**
 * The current sale's figures, polled once for the whole dashboard. The card is fed by the poll,
 * a reset and the end of a run: each answer is numbered when asked, and one asked earlier never
 * replaces one asked later.
 */
export function SaleProvider({ initialSale, children }: { initialSale: SaleStats; children: ReactNode }) {
  const [sale, setSale] = useState(initialSale);
  const asked = useRef(0);
  const shown = useRef(0);
  /** When the figures shown were read: the page's own render at first (set when it mounts), then each answer's. */
  const readAt = useRef<number | null>(null);
  useEffect(() => {
    readAt.current ??= Date.now();
  }, []);

  const updateSale = useCallback(async (request: () => Promise<Answer>) => {
    const number = ++asked.current;
    const result = await request();
    if (result.ok && result.body.sale && number >= shown.current) {
      shown.current = number;
      readAt.current = Date.now();
      setSale(result.body.sale);
    }
    return result;
  }, []);

  const [stale, setStale] = useState<StaleFigures | undefined>();
  const errorText = useErrorText();
  const refreshSale = useCallback(
    async (signal?: AbortSignal) => {
      // When the figures cannot be read the card keeps its last ones, marked as old: never as if current.
      const markStale = (reason: string) => setStale((already) => already ?? { since: readAt.current ?? Date.now(), reason });
      try {
        const answer = await updateSale(() => send("GET", "/api/admin/sale", undefined, signal));
        if (answer.ok) setStale(undefined);
        else markStale(errorText(answer.body as { code?: unknown; message?: unknown }, `HTTP ${answer.status}`));
      } catch (error) {
        if (!signal?.aborted) markStale((error as Error).message);
      }
    },
    [updateSale, errorText],
  );

  useEffect(() => repeat(refreshSale, SALE_POLL_MS), [refreshSale]);

  const value = useMemo(() => ({ sale, stale, refreshSale, updateSale }), [sale, stale, refreshSale, updateSale]);
  return <SaleContext value={value}>{children}</SaleContext>;
}

export function useSale(): SaleState {
  const state = use(SaleContext);
  if (!state) throw new Error("useSale() needs a <SaleProvider> above it.");
  return state;
}

/** The sale card, kept current by the provider's poll. */
export function LiveSaleCard() {
  const { sale, stale } = useSale();
  return <SaleCard sale={sale} stale={stale} />;
}
