"use client";

import { useFormatter, useTranslations } from "next-intl";
import { useEffect, useMemo, useRef, useState } from "react";
import { DIAGRAM, anomalyRows, anomalyWindow, defaultWindow, layOut, scrollTopFor, zoomWindow, type Outliers } from "@/lib/timeline/layout";
import type { TimelineView } from "@/lib/timeline/view";
import { anomalyText, nameOfHolder } from "./anomaly-text";
import { downloadPng, downloadSvg } from "./export";
import { Legend, Summary } from "./summary";
import { TimelineTable } from "./timeline-table";
import { TimelineSvg } from "./timeline-svg";

const POLL_MS = 1000;

/** The holder timeline with its controls: jump, zoom, pan, replay, table view and export. */
export function HolderTimeline({ initial, poll = true, stacked = false }: {
  initial: TimelineView;
  /** Off: the caller passes each new view (the projector refetches on its server events). */
  poll?: boolean;
  /** The anomalies below the diagram, not beside it: the projector's card gives the diagram its whole width, for text a room can read. */
  stacked?: boolean;
}) {
  const t = useTranslations("timeline");
  const tc = useTranslations("common");
  const say = useTranslations("anomalies");
  const kinds = useTranslations("eventKinds");
  const format = useFormatter();
  const [view, setView] = useState(initial);
  // A new view from the caller replaces the one shown (adjusted while rendering, not in an effect).
  const [given, setGiven] = useState(initial);
  if (initial !== given) {
    setGiven(initial);
    setView(initial);
  }
  const layout = useMemo(() => layOut(view.events), [view.events]);
  const bounds = { start: layout.start, end: layout.end };
  // Opens on most holders' activity: a late buyer does not squeeze a class's burst into a sliver.
  const opening = useMemo(() => defaultWindow(layout), [layout]);
  // Unset: the opening window, following a live timeline as it fills in; "all": every event, likewise.
  const [span, setSpan] = useState<{ from: number; to: number } | "all" | undefined>();
  const shown = span === "all" ? { from: layout.start, to: layout.end } : (span ?? opening);
  const times = useMemo(() => view.events.map((event) => event.atUs), [view.events]);
  const [cursorIndex, setCursorIndex] = useState<number | undefined>();
  const cursor = cursorIndex === undefined ? Infinity : (times[cursorIndex] ?? Infinity);
  const [focused, setFocused] = useState<number | undefined>();
  // Bumped by every jump, even to the anomaly already focused, so its lanes scroll back into view.
  const [focusRequest, setFocusRequest] = useState(0);
  const [table, setTable] = useState(false);
  const svgRef = useRef<SVGSVGElement>(null);
  const diagram = useRef<HTMLDivElement>(null);
  const key = useRef<HTMLDivElement>(null);
  const list = useRef<HTMLOListElement>(null);

  // During a lab case or a run the diagram fills in live.
  useEffect(() => {
    if (!view.live || !poll) return;
    const timer = setInterval(async () => {
      const response = await fetch(`/api/admin/sales/${view.saleId}/timeline`, { cache: "no-store" }).catch(() => undefined);
      if (response?.ok) setView((await response.json()) as TimelineView);
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [view.live, view.saleId, poll]);

  const anomalies = view.report.anomalies;
  const nameOf = useMemo(() => nameOfHolder(layout, view.people), [layout, view.people]);
  const texts = useMemo(() => anomalies.map((anomaly) => anomalyText(anomaly, say, format, nameOf)), [anomalies, say, format, nameOf]);
  const focusedAnomaly = focused === undefined ? undefined : anomalies[focused];
  const highlighted = useMemo(() => new Set(focusedAnomaly?.holders ?? []), [focusedAnomaly]);
  /** Focuses an anomaly: its time span and its holders' critical sections fill the window, its lanes are highlighted. */
  function focus(index: number) {
    const anomaly = anomalies[index];
    if (!anomaly) return;
    setFocused(index);
    setTable(false);
    setSpan(anomalyWindow(anomaly, layout));
    setFocusRequest((request) => request + 1);
  }

  // Once the diagram is drawn for the focused anomaly, scroll the page to its lanes: the first
  // under the sticky key and the others below it when they fit, or the diagram's head when all of
  // them fit below it (the SVG is scaled to its box, so units become px here). Only a new jump
  // scrolls: live updates of the layout must not pull the view back.
  useEffect(() => {
    if (focusRequest === 0) return;
    const block = diagram.current;
    const svg = svgRef.current;
    const rows = focusedAnomaly && anomalyRows(focusedAnomaly, layout);
    if (!block || !svg || !rows) return;
    const drawn = svg.getBoundingClientRect();
    const px = drawn.width / DIAGRAM.width;
    const offset = drawn.top + window.scrollY;
    const top = scrollTopFor({ top: offset + rows.top * px, bottom: offset + rows.bottom * px }, {
      height: window.innerHeight,
      contentHeight: document.documentElement.scrollHeight,
      scrollTop: window.scrollY,
      inset: key.current?.offsetHeight ?? 0,
      anchor: block.getBoundingClientRect().top + window.scrollY,
    });
    const smooth = !window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    list.current?.querySelector('[aria-current="true"]')?.scrollIntoView({ block: "nearest" });
    window.scrollTo({ top, behavior: smooth ? "smooth" : "auto" });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- scrolls on a jump request only, not whenever the layout moves under the reader
  }, [focusRequest]);

  const zoom = (factor: number) => setSpan(zoomWindow(shown, factor, (shown.from + shown.to) / 2, bounds));
  const pan = (share: number) => {
    const width = shown.to - shown.from;
    const from = Math.min(Math.max(shown.from + share * width, layout.start), layout.end - width);
    setSpan({ from, to: from + width });
  };
  /** When, counted from the timeline's start as the axis counts: in seconds when the timeline lasts one or more. */
  const at = (us: number) => {
    const ms = (us - layout.start) / 1000;
    return layout.end - layout.start >= 1_000_000
      ? t("time", { value: format.number(ms / 1000, { minimumFractionDigits: 1, maximumFractionDigits: 1 }), unit: "s" })
      : t("time", { value: format.number(ms, { maximumFractionDigits: 1 }), unit: "ms" });
  };
  const outliersText = (side: "earlier" | "later", outliers: Outliers) =>
    t("outliers", { side, count: outliers.buyers, from: at(outliers.from), to: at(outliers.to) });
  const step = (by: number) => setCursorIndex((index) => Math.min(Math.max((index ?? times.length - 1) + by, 0), times.length - 1));

  if (view.events.length === 0) {
    return <p className="muted" data-testid="timeline-empty">{t("empty")}{view.live ? t("waitingForBuyers") : ""}</p>;
  }
  return (
    <div className={stacked ? "timeline stacked" : "timeline"}>
      <Summary view={view} />
      <div className="toolbar timeline-controls" role="toolbar" aria-label={t("controls")}>
        <button type="button" data-testid="timeline-jump" onClick={() => focus(0)} disabled={anomalies.length === 0}>{t("jump")}</button>
        <button type="button" onClick={() => zoom(0.5)} aria-label={t("zoomIn")}>{t("zoomIn")}</button>
        <button type="button" onClick={() => zoom(2)} aria-label={t("zoomOut")}>{t("zoomOut")}</button>
        <button type="button" onClick={() => pan(-0.25)} aria-label={t("panLeft")}>◀</button>
        <button type="button" onClick={() => pan(0.25)} aria-label={t("panRight")}>▶</button>
        <button type="button" onClick={() => setSpan("all")}>{t("showAll")}</button>
        <button type="button" onClick={() => setTable((on) => !on)} aria-pressed={table}>{table ? t("diagramView") : t("tableView")}</button>
        <a className="button-link" href={`/api/admin/sales/${view.saleId}/timeline`} download={`sale-${view.saleId}-timeline.json`}>{tc("exportJson")}</a>
        <button type="button" onClick={() => svgRef.current && downloadSvg(svgRef.current, `sale-${view.saleId}-timeline.svg`)}>{t("exportSvg")}</button>
        <button type="button" onClick={() => svgRef.current && void downloadPng(svgRef.current, `sale-${view.saleId}-timeline.png`)}>{t("exportPng")}</button>
      </div>
      <div className="toolbar timeline-replay">
        <label>
          {t("replay")}{" "}
          <input type="range" min={0} max={times.length - 1} value={cursorIndex ?? times.length - 1}
            onChange={(event) => setCursorIndex(Number(event.target.value))} aria-label={t("replayCursor")} />
        </label>
        <button type="button" onClick={() => step(-1)} title={t("oneBack")}>{t("minusOne")}</button>
        <button type="button" onClick={() => step(1)} title={t("oneForward")}>{t("plusOne")}</button>
        <button type="button" onClick={() => setCursorIndex(undefined)}>{t("replayOff")}</button>
        <span className="muted">
          {cursorIndex === undefined ? t("everyEvent") : t("eventOf", {
            n: cursorIndex + 1, total: times.length, kind: view.events[cursorIndex] ? kinds(view.events[cursorIndex].kind) : "",
          })}
        </span>
      </div>
      {span === undefined && (opening.earlier || opening.later) && (
        <p className="timeline-outliers" data-testid="timeline-outliers">
          {t("outsideView", { list: [opening.earlier && outliersText("earlier", opening.earlier), opening.later && outliersText("later", opening.later)].filter(Boolean).join(" · ") })}
          <button type="button" onClick={() => setSpan("all")}>{t("showAll")}</button>
        </p>
      )}
      <div className="timeline-body">
        {/* No scroll box of its own: the page scrolls, the key stays on top of the diagram. */}
        <div className="timeline-diagram" ref={diagram}>
          {table ? <div className="timeline-table-wrap"><TimelineTable view={view} start={layout.start} /></div> : (
            <>
              <div className="timeline-key" ref={key}><Legend votes={layout.nodes.length > 0} /></div>
              <TimelineSvg ref={svgRef} layout={layout} anomalies={anomalies} texts={texts} window={shown} cursor={cursor} focused={focused} highlighted={highlighted} people={view.people} />
            </>
          )}
        </div>
        <aside className="timeline-anomalies">
          <h2>{t("anomalies", { count: anomalies.length })}</h2>
          {anomalies.length === 0 ? <p className="muted">{t("noAnomalies")}</p> : (
            <ol data-testid="timeline-anomalies" ref={list}>
              {anomalies.slice(0, 200).map((anomaly, index) => (
                <li key={index} data-focused={focused === index ? "true" : undefined} aria-current={focused === index ? "true" : undefined}
                  className={`anomaly ${anomaly.kind}`}>
                  <button type="button" className="link-button" onClick={() => focus(index)}>
                    {t("anomalyAt", { ms: ((anomaly.t - layout.start) / 1000).toFixed(1), text: texts[index] ?? anomaly.note })}
                  </button>
                </li>
              ))}
            </ol>
          )}
          {anomalies.length > 200 && <p className="muted">{t("moreAnomalies", { count: anomalies.length - 200 })}</p>}
        </aside>
      </div>
    </div>
  );
}
