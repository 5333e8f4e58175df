"use client";

import { useEffect, useState } from "react";
import type { TimelineView } from "@/lib/timeline/view";
import { HolderTimeline } from "../sales/[id]/timeline/holder-timeline";

/** The current sale's holder timeline on the projector; a new drop (a new sale) starts a new one, which fills in live. */
export function LiveTimeline({ saleId }: { saleId: number }) {
  const [view, setView] = useState<TimelineView | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let current = true;
    setView(null);
    setError(null);
    fetch(`/api/admin/sales/${saleId}/timeline`, { cache: "no-store" })
      .then(async (response) => {
        const body = await response.json();
        if (!current) return;
        if (response.ok) setView(body as TimelineView);
        else setError(body.message ?? `The server answered ${response.status}.`);
      })
      .catch(() => current && setError("The server could not be reached."));
    return () => {
      current = false;
    };
  }, [saleId]);

  if (error) return <p className="notice error">{error}</p>;
  if (!view) return <p className="muted">Loading the holder timeline…</p>;
  return <HolderTimeline key={saleId} initial={view} />;
}
