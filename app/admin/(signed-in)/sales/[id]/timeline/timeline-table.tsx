import type { TimelineView } from "@/lib/timeline/view";

/** The same events as the diagram, as a table (keyboard- and screen-reader-friendly). */
export function TimelineTable({ view, start }: { view: TimelineView; start: number }) {
  const buyerOf = new Map<string, string>();
  for (const event of view.events) if (event.buyer && !buyerOf.has(event.holder)) buyerOf.set(event.holder, event.buyer);
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
            <td>{((event.atUs - start) / 1000).toFixed(2)}</td>
            <td>{event.holder ? buyerCell(buyerOf.get(event.holder), event.holder, view.people) : "—"}</td>
            <td>{event.instance ?? "—"}</td>
            <td>{event.kind}</td>
            <td>{event.stock ?? ""}</td>
            <td>{event.unit ?? ""}</td>
            <td>{event.fencingToken ?? event.lockToken ?? ""}</td>
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
