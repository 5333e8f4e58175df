import { useTranslations } from "next-intl";
import type { LiveSnapshot } from "@/lib/workshop/live";

/** Who got a unit in this drop, in order; a unit that went to two people is flagged. */
export function WinnerList(props: { winners: NonNullable<LiveSnapshot["winners"]> }) {
  const t = useTranslations("winners");
  const { people, others } = props.winners;
  return (
    <section className="winners" data-testid="winners" aria-label={t("title")}>
      <h2>{t("title")}</h2>
      {people.length === 0 ? (
        others === 0 && <p className="muted">{t("nobody")}</p>
      ) : (
        <ol>
          {people.map((winner, i) => (
            <li key={i} className={winner.twice ? "twice" : undefined}>
              {t("unit", { name: winner.name, unit: winner.unit })}
              {winner.twice && <strong>{t("soldTwice")}</strong>}
            </li>
          ))}
        </ol>
      )}
      {others > 0 && <p className="muted">{people.length ? t("othersWithPeople", { count: others }) : t("othersOnly", { count: others })}</p>}
    </section>
  );
}
