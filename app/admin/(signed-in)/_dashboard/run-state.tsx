"use client";

import { createContext, use, useCallback, useEffect, useMemo, useState, type ReactNode } from "react";
import type { RunRecord } from "@/lib/runs/runs";
import { repeat, send } from "./api";
import { useSale } from "./sale-state";

const RUN_POLL_MS = 500;

interface RunState {
  /** The run history, newest first; fetched again when a watched run ends. */
  runs: RunRecord[];
  /** The run last started or watched, as last polled (it stays on screen once it ends). */
  activeRun: RunRecord | null;
  running: boolean;
  /** Shows `run` and polls it until it ends. */
  watch: (run: RunRecord) => void;
  /** Shows a fresher copy of the active run (a cancel's answer) without waiting for the poll. */
  showRun: (run: RunRecord) => void;
}

const RunContext = createContext<RunState | null>(null);

/**
 * The runs of the dashboard: one poll of the run in progress, shared by the form (which starts
 * runs), the progress panel and the history. Needs a <SaleProvider> above it: the sale card is
 * refreshed when a run ends, its last reservations settled.
 */
export function RunProvider(props: { initialRuns: RunRecord[]; activeRunId: number | null; children: ReactNode }) {
  const { refreshSale } = useSale();
  const [runs, setRuns] = useState(props.initialRuns);
  const [activeRun, setActiveRun] = useState<RunRecord | null>(null);
  const [watching, setWatching] = useState<number | null>(props.activeRunId);

  useEffect(() => {
    if (watching === null) return;
    return repeat(async (signal) => {
      const result = await send("GET", `/api/admin/runs/${watching}`, undefined, signal);
      if (signal.aborted || !result.ok) return;
      const run = result.body.run as RunRecord;
      setActiveRun(run);
      if (run.status !== "running") {
        setWatching(null);
        const list = await send("GET", "/api/admin/runs");
        if (list.ok) setRuns(list.body.runs);
        void refreshSale();
      }
    }, RUN_POLL_MS);
  }, [watching, refreshSale]);

  const watch = useCallback((run: RunRecord) => {
    setActiveRun(run);
    setWatching(run.id);
  }, []);

  const value = useMemo(
    () => ({ runs, activeRun, running: activeRun?.status === "running", watch, showRun: setActiveRun }),
    [runs, activeRun, watch],
  );
  return <RunContext value={value}>{props.children}</RunContext>;
}

export function useRuns(): RunState {
  const state = use(RunContext);
  if (!state) throw new Error("useRuns() needs a <RunProvider> above it.");
  return state;
}
