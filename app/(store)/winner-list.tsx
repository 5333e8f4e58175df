import type { LiveSnapshot } from "@/lib/workshop/live";

/** Who got a unit in this drop, in order; a unit that went to two people is flagged. */
export function WinnerList(props: { winners: NonNullable<LiveSnapshot["winners"]> }) {
  const { people, others } = props.winners;
  return (
    <section className="winners" data-testid="winners" aria-label="Who got one">
      <h2>Who got one</h2>
      {people.length === 0 ? (
        others === 0 && <p className="muted">Nobody yet.</p>
      ) : (
        <ol>
          {people.map((winner, i) => (
            <li key={i} className={winner.twice ? "twice" : undefined}>
              {winner.name} — unit {winner.unit}
              {winner.twice && <strong> · sold twice!</strong>}
            </li>
          ))}
        </ol>
      )}
      {others > 0 && <p className="muted">{people.length ? "and " : ""}{others} order{others === 1 ? "" : "s"} from load runs{people.length ? "" : " (no people yet)"}</p>}
    </section>
  );
}
