import type { Vote } from "@/lib/timeline/events";
import { VOTE_COLOURS, VOTE_WORDS } from "@/lib/timeline/layout";
import type { TimelineView } from "@/lib/timeline/view";

/** The anomaly counts beside the sale's accounting, and what the clock can and cannot tell. */
export function Summary({ view }: { view: TimelineView }) {
  const { report, accounting } = view;
  const agrees = report.unitsSoldTwice === accounting.doubleSold;
  return (
    <div className="timeline-summary" data-testid="timeline-summary">
      <p>
        <strong>{report.overlaps}</strong> overlapping critical sections · <strong>{report.unitsSoldTwice}</strong> units written twice ·{" "}
        <strong>{report.writesAfterExpiry}</strong> writes after the lease ran out · <strong>{report.refusedWrites}</strong> stale accesses refused
      </p>
      <p className={agrees ? "good" : "bad"}>
        Timeline: {report.unitsSoldTwice} units written twice · accounting (orders in Postgres): {accounting.doubleSold} sold twice,{" "}
        {accounting.lostUnits} lost, {accounting.orders} orders of {accounting.initialStock} —{" "}
        {agrees ? "they agree" : view.sampled || view.recorded > view.events.length ? "they differ: this timeline is a sample" : "they differ"}
      </p>
      <p className="muted">
        Reads and writes of goods:001 are stamped by Redis itself (exact order). Lock steps (waiting, acquired, renewed,
        released) are stamped by each app process and moved onto Redis time: ± {view.clockErrorMs} ms.
        {view.recorded > view.events.length && ` ${view.events.length} of ${view.recorded} events shown.`}
        {view.sampled && ` ${view.sampled}.`}
        {view.live && " Recording live: the diagram fills in as buyers arrive."}
      </p>
    </div>
  );
}

const SWATCHES: readonly [string, string][] = [
  ["#9e9e9e", "waiting for the lock"],
  ["#90caf9", "holding the lock"],
  ["#1565c0", "inside the critical section (read → write)"],
  ["#ef6c00", "lease runs out (dashed)"],
  ["#1f8a4c", "renewal / Redlock vote granted"],
  ["#d32f2f", "two holders at once"],
  ["#8a6d3b", "fault in force"],
];

/** The diagram's key; the Redlock node rows' part only when the sale recorded votes. */
export function Legend({ votes }: { votes: boolean }) {
  return (
    <ul className="timeline-legend" aria-label="Legend">
      {SWATCHES.map(([colour, meaning]) => (
        <li key={meaning}><span className="swatch" style={{ background: colour }} aria-hidden="true" /> {meaning}</li>
      ))}
      <li><span aria-hidden="true">✕</span> write refused by the fenced store</li>
      <li><span className="swatch timeline-legend-focus" aria-hidden="true" /> lanes of the focused anomaly</li>
      {votes && (
        <li className="timeline-legend-votes">
          Redlock, one row per Redis node, a mark per acquire:{" "}
          {(Object.keys(VOTE_COLOURS) as Vote[]).map((vote) => (
            <span key={vote} className="timeline-legend-vote">
              <span className="swatch" style={{ background: VOTE_COLOURS[vote] }} aria-hidden="true" /> {VOTE_WORDS[vote]}
            </span>
          ))}
          <span className="timeline-legend-vote">
            <span className="timeline-legend-validity" style={{ background: VOTE_COLOURS.granted }} aria-hidden="true" /> validity left after an
            acquire that won its quorum
          </span>
        </li>
      )}
    </ul>
  );
}
