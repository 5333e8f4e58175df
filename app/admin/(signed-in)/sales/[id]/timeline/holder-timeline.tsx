"use client";

import { useEffect, useMemo, useRef, useState } from "react";
import { layOut, zoomWindow } from "@/lib/timeline/layout";
import type { TimelineView } from "@/lib/timeline/view";
import { downloadPng, downloadSvg } from "./export";
import { Legend, Summary } from "./summary";
import { TimelineTable } from "./timeline-table";
import { LANE_H, TimelineSvg } from "./timeline-svg";

const POLL_MS = 1000;

/** The holder timeline with its controls: jump, zoom, pan, replay, table view and export. */
export function HolderTimeline({ initial }: { initial: TimelineView }) {
  const [view, setView] = useState(initial);
  const layout = useMemo(() => layOut(view.events), [view.events]);
  const bounds = { start: layout.start, end: layout.end };
  const [span, setSpan] = useState<{ from: number; to: number } | undefined>();
  const shown = span ?? { from: layout.start, to: layout.end };
  const times = useMemo(() => view.events.map((event) => event.t), [view.events]);
  const [cursorIndex, setCursorIndex] = useState<number | undefined>();
  const cursor = cursorIndex === undefined ? Infinity : (times[cursorIndex] ?? Infinity);
  const [focused, setFocused] = useState<number | undefined>();
  const [table, setTable] = useState(false);
  const svgRef = useRef<SVGSVGElement>(null);
  const scroller = useRef<HTMLDivElement>(null);

  // During a lab case or a run the diagram fills in live.
  useEffect(() => {
    if (!view.live) return;
    const timer = setInterval(async () => {
      const response = await fetch(`/api/admin/sales/${view.saleId}/timeline`, { cache: "no-store" }).catch(() => undefined);
      if (response?.ok) setView((await response.json()) as TimelineView);
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [view.live, view.saleId]);

  const anomalies = view.report.anomalies;
  function focus(index: number) {
    const anomaly = anomalies[index];
    if (!anomaly) return;
    setFocused(index);
    const until = "until" in anomaly ? anomaly.until : anomaly.t;
    const pad = Math.max((until - anomaly.t) * 2, (layout.end - layout.start) / 50, 2000);
    setSpan({ from: Math.max(layout.start, anomaly.t - pad), to: Math.min(layout.end, until + pad) });
    const row = Math.min(...anomaly.holders.map((id) => layout.rowOf.get(id) ?? 0));
    scroller.current?.scrollTo({ top: Math.max(0, row * LANE_H - 60), behavior: "smooth" });
  }
  const zoom = (factor: number) => setSpan(zoomWindow(shown, factor, (shown.from + shown.to) / 2, bounds));
  const pan = (share: number) => {
    const width = shown.to - shown.from;
    const from = Math.min(Math.max(shown.from + share * width, layout.start), layout.end - width);
    setSpan({ from, to: from + width });
  };
  const step = (by: number) => setCursorIndex((index) => Math.min(Math.max((index ?? times.length - 1) + by, 0), times.length - 1));

  if (view.events.length === 0) {
    return <p className="muted" data-testid="timeline-empty">No events recorded for this sale yet.{view.live ? " Waiting for buyers…" : ""}</p>;
  }
  return (
    <div className="timeline">
      <Summary view={view} />
      <div className="toolbar timeline-controls" role="toolbar" aria-label="Timeline controls">
        <button type="button" data-testid="timeline-jump" onClick={() => focus(0)} disabled={anomalies.length === 0}>Jump to the first anomaly</button>
        <button type="button" onClick={() => zoom(0.5)} aria-label="Zoom in">Zoom in</button>
        <button type="button" onClick={() => zoom(2)} aria-label="Zoom out">Zoom out</button>
        <button type="button" onClick={() => pan(-0.25)} aria-label="Pan left">◀</button>
        <button type="button" onClick={() => pan(0.25)} aria-label="Pan right">▶</button>
        <button type="button" onClick={() => setSpan(undefined)}>Show all</button>
        <button type="button" onClick={() => setTable((on) => !on)} aria-pressed={table}>{table ? "Diagram view" : "Table view"}</button>
        <a className="button-link" href={`/api/admin/sales/${view.saleId}/timeline`} download={`sale-${view.saleId}-timeline.json`}>Export JSON</a>
        <button type="button" onClick={() => svgRef.current && downloadSvg(svgRef.current, `sale-${view.saleId}-timeline.svg`)}>Export SVG</button>
        <button type="button" onClick={() => svgRef.current && void downloadPng(svgRef.current, `sale-${view.saleId}-timeline.png`)}>Export PNG</button>
      </div>
      <div className="toolbar timeline-replay">
        <label>
          Replay{" "}
          <input type="range" min={0} max={times.length - 1} value={cursorIndex ?? times.length - 1}
            onChange={(event) => setCursorIndex(Number(event.target.value))} aria-label="Replay cursor: events up to here" />
        </label>
        <button type="button" onClick={() => step(-1)} aria-label="One event back">−1 event</button>
        <button type="button" onClick={() => step(1)} aria-label="One event forward">+1 event</button>
        <button type="button" onClick={() => setCursorIndex(undefined)}>Replay off</button>
        <span className="muted">{cursorIndex === undefined ? "every event shown" : `event ${cursorIndex + 1} of ${times.length}: ${view.events[cursorIndex]?.kind}`}</span>
      </div>
      <div className="timeline-body">
        <div className="timeline-scroll" ref={scroller}>
          {table ? <TimelineTable view={view} start={layout.start} /> : (
            <TimelineSvg ref={svgRef} layout={layout} anomalies={anomalies} window={shown} cursor={cursor} focused={focused} />
          )}
          <Legend />
        </div>
        <aside className="timeline-anomalies">
          <h2>Anomalies ({anomalies.length})</h2>
          {anomalies.length === 0 ? <p className="muted">None: one holder at a time, every unit written once.</p> : (
            <ol data-testid="timeline-anomalies">
              {anomalies.slice(0, 200).map((anomaly, index) => (
                <li key={index} data-focused={focused === index ? "true" : undefined} className={`anomaly ${anomaly.kind}`}>
                  <button type="button" className="link-button" onClick={() => focus(index)}>
                    {((anomaly.t - layout.start) / 1000).toFixed(1)} ms · {anomaly.note}
                  </button>
                </li>
              ))}
            </ol>
          )}
          {anomalies.length > 200 && <p className="muted">and {anomalies.length - 200} more (in the JSON export)</p>}
        </aside>
      </div>
    </div>
  );
}
