import { useTranslations } from "next-intl";
import type { Vote } from "@/lib/timeline/events";
import { VOTE_COLOURS } from "@/lib/timeline/layout";
import type { TimelineView } from "@/lib/timeline/view";

/** The anomaly counts beside the sale's accounting, and what the clock can and cannot tell. */
export function Summary({ view }: { view: TimelineView }) {
  const t = useTranslations("timeline");
  const { report, accounting } = view;
  const agrees = report.unitsSoldTwice === accounting.doubleSold;
  const agreement = agrees ? "agree" : view.sampled || view.recorded > view.events.length ? "sample" : "differ";
  return (
    <div className="timeline-summary" data-testid="timeline-summary">
      <p>
        {t.rich("summaryCounts", {
          overlaps: report.overlaps, twice: report.unitsSoldTwice, late: report.writesAfterExpiry, refused: report.refusedWrites,
          b: (chunks) => <strong>{chunks}</strong>,
        })}
      </p>
      <p className={agrees ? "good" : "bad"}>
        {t("summaryAgreement", {
          twice: report.unitsSoldTwice, doubleSold: accounting.doubleSold, lost: accounting.lostUnits, orders: accounting.orders,
          initial: accounting.initialStock, agreement,
        })}
      </p>
      <p className="muted">
        {t("summaryClock", { ms: view.clockErrorMs })}
        {view.recorded > view.events.length && t("summaryShown", { shown: view.events.length, recorded: view.recorded })}
        {/* How a big run's timeline was sampled, counted when it was kept (lib/timeline/sample.ts). */}
        {view.sampled && (typeof view.sampled === "string" ? ` ${view.sampled}.` : t("sampled", { ...view.sampled }))}
        {view.live && t("summaryLive")}
      </p>
    </div>
  );
}

/** The diagram's colours and what each means (messages `timeline.legend…`). */
const SWATCHES = [
  ["#9e9e9e", "legendWaiting"],
  ["#90caf9", "legendHolding"],
  ["#1565c0", "legendCritical"],
  ["#ef6c00", "legendLease"],
  ["#1f8a4c", "legendRenewal"],
  ["#d32f2f", "legendTwoHolders"],
  ["#8a6d3b", "legendFault"],
] as const;

/** The diagram's key; the Redlock node rows' part only when the sale recorded votes. */
export function Legend({ votes }: { votes: boolean }) {
  const t = useTranslations("timeline");
  const words = useTranslations("votes");
  return (
    <ul className="timeline-legend" aria-label={t("legend")}>
      {SWATCHES.map(([colour, meaning]) => (
        <li key={meaning}><span className="swatch" style={{ background: colour }} aria-hidden="true" /> {t(meaning)}</li>
      ))}
      <li><span aria-hidden="true">✕</span> {t("legendRefused")}</li>
      <li><span className="swatch timeline-legend-focus" aria-hidden="true" /> {t("legendFocus")}</li>
      {votes && (
        <li className="timeline-legend-votes">
          {t("legendVotes")}{" "}
          {(Object.keys(VOTE_COLOURS) as Vote[]).map((vote) => (
            <span key={vote} className="timeline-legend-vote">
              <span className="swatch" style={{ background: VOTE_COLOURS[vote] }} aria-hidden="true" /> {words(vote)}
            </span>
          ))}
          <span className="timeline-legend-vote">
            <span className="timeline-legend-validity" style={{ background: VOTE_COLOURS.granted }} aria-hidden="true" /> {t("legendValidity")}
          </span>
        </li>
      )}
    </ul>
  );
}
