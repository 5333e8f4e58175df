import type { TimelineView } from "@/lib/timeline/view";

/** The same events as the diagram, as a table (keyboard- and screen-reader-friendly). */
export function TimelineTable({ view, start }: { view: TimelineView; start: number }) {
  const buyerOf = new Map<string, string>();
  for (const event of view.events) if (event.b && !buyerOf.has(event.h)) buyerOf.set(event.h, event.b);
  return (
    <table className="runs timeline-table" data-testid="timeline-table">
      <caption>Every event of sale #{view.saleId}, in Redis-clock order</caption>
      <thead>
        <tr>
          <th scope="col">Time (ms)</th><th scope="col">Buyer (holder)</th><th scope="col">Instance</th><th scope="col">Event</th>
          <th scope="col">Stock</th><th scope="col">Unit</th><th scope="col">Token</th><th scope="col">Note</th>
        </tr>
      </thead>
      <tbody>
        {view.events.map((event, index) => (
          <tr key={index}>
            <td>{((event.t - start) / 1000).toFixed(2)}</td>
            <td>{event.h ? buyerCell(buyerOf.get(event.h), event.h, view.people) : "—"}</td>
            <td>{event.i ?? "—"}</td>
            <td>{event.kind}</td>
            <td>{event.s ?? ""}</td>
            <td>{event.u ?? ""}</td>
            <td>{event.f ?? event.k ?? ""}</td>
            <td>{event.note ?? (event.votes ? `votes ${event.votes.join(", ")}, validity ${event.validityMs} ms` : "")}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A person's lane (workshop mode) is named, so the class finds itself in the table too. */
function buyerCell(buyer: string | undefined, holder: string, people: TimelineView["people"]): string {
  const person = buyer ? people?.[buyer] : undefined;
  return person ? `${person} (a person; ${buyer}, ${holder})` : `${buyer ?? "?"} (${holder})`;
}
