import type { useFormatter, useTranslations } from "next-intl";
import type { Anomaly } from "@/lib/timeline/anomalies";
import { holderOf, type Layout } from "@/lib/timeline/layout";
import type { TimelineView } from "@/lib/timeline/view";

type Translate = ReturnType<typeof useTranslations<"anomalies">>;
type Format = ReturnType<typeof useFormatter>;

/**
 * How a holder is called on the page: the person's display name in workshop mode (the view's
 * `people`: buyer id → name), else its buyer id, else the holder id.
 */
export function nameOfHolder(layout: Pick<Layout, "rows" | "rowOf">, people: TimelineView["people"]): (holder: string) => string {
  return (holder) => {
    const buyer = holderOf(layout, holder)?.buyer;
    return (buyer && people?.[buyer]) || buyer || holder;
  };
}

/** One anomaly in the reader's language, naming people (lib/timeline/anomalies.ts keeps the facts; `note` is the English). */
export function anomalyText(anomaly: Anomaly, t: Translate, format: Format, nameOf: (holder: string) => string): string {
  switch (anomaly.kind) {
    case "overlap": {
      const [a, b] = anomaly.holders.map(nameOf) as [string, string];
      return anomaly.read === undefined
        ? t("overlap", { a, b })
        : t("overlapRead", { a, b, stock: anomaly.read, soldTwice: anomaly.soldTwice ? "yes" : "no" });
    }
    case "unit-twice":
      return t("unitTwice", { unit: anomaly.unit, count: anomaly.holders.length, names: format.list(anomaly.holders.map(nameOf), { type: "conjunction" }) });
    case "write-after-expiry":
      return t("late", { name: nameOf(anomaly.holders[0]), ms: Math.round(anomaly.lateMs) });
    case "refused-write":
      return anomaly.fence === undefined
        ? t("refused", { name: nameOf(anomaly.holders[0]), access: anomaly.access })
        : t("refusedFence", { name: nameOf(anomaly.holders[0]), access: anomaly.access, fence: String(anomaly.fence) });
  }
}
