import { useTranslations } from "next-intl";
import type { TimelineView } from "@/lib/timeline/view";

/** The same events as the diagram, as a table (keyboard- and screen-reader-friendly). */
export function TimelineTable({ view, start }: { view: TimelineView; start: number }) {
  const t = useTranslations("timeline");
  const kinds = useTranslations("eventKinds");
  const buyerOf = new Map<string, string>();
  for (const event of view.events) if (event.buyer && !buyerOf.has(event.holder)) buyerOf.set(event.holder, event.buyer);
  /** A person's lane (workshop mode) is named, so the class finds itself in the table too. */
  const buyerCell = (buyer: string | undefined, holder: string) => {
    const person = buyer ? view.people?.[buyer] : undefined;
    return person ? t("personCell", { name: person, buyer: buyer ?? "?", holder }) : `${buyer ?? "?"} (${holder})`;
  };
  return (
    <table className="runs timeline-table" data-testid="timeline-table">
      <caption>{t("caption", { id: String(view.saleId) })}</caption>
      <thead>
        <tr>
          <th scope="col">{t("colTime")}</th><th scope="col">{t("colBuyer")}</th><th scope="col">{t("colInstance")}</th><th scope="col">{t("colEvent")}</th>
          <th scope="col">{t("colStock")}</th><th scope="col">{t("colUnit")}</th><th scope="col">{t("colToken")}</th><th scope="col">{t("colNote")}</th>
        </tr>
      </thead>
      <tbody>
        {view.events.map((event, index) => (
          <tr key={index}>
            <td>{((event.atUs - start) / 1000).toFixed(2)}</td>
            <td>{event.holder ? buyerCell(buyerOf.get(event.holder), event.holder) : "—"}</td>
            <td>{event.instance ?? "—"}</td>
            <td>{kinds(event.kind)}</td>
            <td>{event.stock ?? ""}</td>
            <td>{event.unit ?? ""}</td>
            <td>{event.fencingToken ?? event.lockToken ?? ""}</td>
            {/* A note is recorded with its event, in English (a fault, a refusal's reason). */}
            <td>{event.note ?? (event.votes ? t("votesNote", { votes: event.votes.join(", "), ms: event.validityMs ?? "?" }) : "")}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
