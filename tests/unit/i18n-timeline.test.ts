import { createFormatter, createTranslator } from "next-intl";
import { describe, expect, it } from "vitest";
import { anomalyText, nameOfHolder } from "@/app/admin/(signed-in)/sales/[id]/timeline/anomaly-text";
import { LOCALES, type Locale } from "@/lib/i18n/locales";
import { messagesFor } from "@/lib/i18n/messages";
import { detectAnomalies } from "@/lib/timeline/anomalies";
import type { TimelineEvent } from "@/lib/timeline/events";
import { layOut } from "@/lib/timeline/layout";
import { englishWordsIn } from "../support/untranslated";

const ms = (n: number) => 1_700_000_000_000_000 + n * 1000;

/** A holder who reads `stock` and writes it (or leaves), with its buyer. */
function holder(id: string, buyer: string, at: { read: number; write?: number; released: number; expires?: number }, stock: number, extra: Partial<TimelineEvent> = {}): TimelineEvent[] {
  const events: TimelineEvent[] = [
    { atUs: ms(at.read - 2), kind: "acquire-sent", holder: id, instance: "app-1", buyer },
    { atUs: ms(at.read - 1), kind: "acquired", holder: id, ...(at.expires !== undefined && { leaseEndsAtUs: ms(at.expires) }) },
    { atUs: ms(at.read), kind: "read", holder: id, stock },
  ];
  if (at.write !== undefined) events.push({ atUs: ms(at.write), kind: "write", holder: id, stock: stock - 1, unit: stock, ...extra });
  events.push({ atUs: ms(at.released), kind: "released", holder: id });
  return events;
}

// Two phones of a workshop (human- buyer ids), as the issue saw them on the projector, and a late writer.
const MINJUN = "human-n9kp0iieb6cd";
const SAKURA = "human-qrp04awt0mwt";
const events = [
  ...holder("a", MINJUN, { read: 1, write: 50, released: 51, expires: 20 }, 3),
  ...holder("b", SAKURA, { read: 22, write: 30, released: 31 }, 3),
].sort((x, y) => x.atUs - y.atUs);
const people = { [MINJUN]: "민준", [SAKURA]: "さくら" };

function say(locale: Locale) {
  const report = detectAnomalies(events);
  const t = createTranslator({ locale, messages: messagesFor(locale), namespace: "anomalies" });
  const format = createFormatter({ locale });
  const nameOf = nameOfHolder(layOut(events), people);
  return report.anomalies.map((anomaly) => ({ kind: anomaly.kind, text: anomalyText(anomaly, t, format, nameOf), note: anomaly.note }));
}

describe("the timeline's anomalies, said to people", () => {
  it("name the people, not their buyer ids (the API's note keeps the ids)", () => {
    const [overlap, twice, late] = say("en");
    expect(overlap).toEqual({
      kind: "overlap",
      text: "민준 and さくら both read 3 — unit 3 sold twice",
      note: `${MINJUN} and ${SAKURA} both read 3 — unit 3 sold twice`,
    });
    expect(twice?.text).toBe("unit 3 written by 2 holders: さくら and 민준");
    expect(late?.text).toBe("민준 wrote 30 ms after its lease ran out");
  });

  it.each(LOCALES.filter((locale) => locale !== "en"))("in %s: the names, the numbers, and no English", (locale) => {
    for (const { text } of say(locale)) {
      expect(text).not.toContain("human-");
      expect(englishWordsIn(text, Object.values(people))).toEqual([]);
    }
    const [overlap] = say(locale);
    expect(overlap?.text).toContain("민준");
    expect(overlap?.text).toContain("さくら");
    expect(overlap?.text).toContain("3");
  });

  it("a holder of a load run keeps its buyer id, and one without a buyer its holder id", () => {
    const nameOf = nameOfHolder(layOut(events), undefined);
    expect(nameOf("a")).toBe(MINJUN);
    expect(nameOf("zz")).toBe("zz");
  });
});
