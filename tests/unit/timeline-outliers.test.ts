/**
 * What the timeline says of the holders its opening window leaves out ("1 buyer later, at 40.2 s —
 * Show all"), in every language: drawn on the server from a class's burst and its latecomers.
 */
import { NextIntlClientProvider } from "next-intl";
import { createElement, type ComponentProps } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { HolderTimeline } from "@/app/admin/(signed-in)/sales/[id]/timeline/holder-timeline";
import { LOCALES, type Locale } from "@/lib/i18n/locales";
import { MESSAGES } from "@/lib/i18n/messages";
import { detectAnomalies } from "@/lib/timeline/anomalies";
import type { TimelineEvent } from "@/lib/timeline/events";
import type { TimelineView } from "@/lib/timeline/view";
import { englishWordsIn } from "../support/untranslated";

const s = 1_000_000;
const T0 = 1_780_000_000 * s;

/** One buy of `buyer` at `at` µs past the start: read, 5 ms of work, write. */
const buy = (holder: string, buyer: string, at: number): TimelineEvent[] => [
  { atUs: T0 + at, kind: "acquire-sent", holder, instance: "app-1", buyer },
  { atUs: T0 + at + 1_000, kind: "read", holder, stock: 5 },
  { atUs: T0 + at + 6_000, kind: "write", holder, stock: 4, unit: 5 },
];

function view(events: TimelineEvent[]): TimelineView {
  const sorted = [...events].sort((a, b) => a.atUs - b.atUs);
  return {
    saleId: 3, strategy: "none", live: false, events: sorted, recorded: sorted.length, clockErrorMs: 0.5, report: detectAnomalies(sorted),
    accounting: { doubleSold: 0, lostUnits: 0, orders: 0, initialStock: 5 },
  };
}

/** A class of 12 buying within 2 s. */
const burst = Array.from({ length: 12 }, (_, index) => buy(`h${index}`, `buyer-${index}`, Math.round((index * 2 * s) / 11))).flat();

function note(events: TimelineEvent[], locale: Locale = "en"): string | undefined {
  const html = renderToStaticMarkup(
    createElement(
      NextIntlClientProvider,
      // Its children come as createElement's third argument, which its props' type does not know.
      { locale, messages: MESSAGES[locale], timeZone: "UTC" } as ComponentProps<typeof NextIntlClientProvider>,
      createElement(HolderTimeline, { initial: view(events), poll: false }),
    ),
  );
  const found = /<p[^>]*data-testid="timeline-outliers"[^>]*>(.*?)<\/p>/s.exec(html)?.[1];
  return found?.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ").trim();
}

describe("the holders the timeline opens without", () => {
  it("names the latecomer, when, and offers every event", () => {
    expect(note([...burst, ...buy("late", "buyer-late", 40.2 * s)])).toBe("Outside this view: 1 buyer later, at 40.2 s Show all");
  });

  it("counts buyers and gives the span of several", () => {
    const events = [...buy("early", "buyer-early", 0), ...burst.map((event) => ({ ...event, atUs: event.atUs + 20 * s })), ...buy("l1", "buyer-l1", 60 * s), ...buy("l2", "buyer-l2", 62.5 * s)];
    expect(note(events)).toBe("Outside this view: 1 buyer earlier, at 0.0 s · 2 buyers later, from 60.0 s to 62.5 s Show all");
  });

  it("says nothing when no one is left out", () => {
    expect(note(burst)).toBeUndefined();
  });

  it.each(LOCALES.filter((locale) => locale !== "en"))("in %s: the count and the time in its own words, no English", (locale) => {
    const text = note([...burst, ...buy("l1", "buyer-l1", 38 * s), ...buy("l2", "buyer-l2", 40.2 * s)], locale)!;
    expect(text).toContain("2");
    expect(text).toContain("38.0");
    expect(text).toContain("40.2");
    expect(englishWordsIn(text)).toEqual([]);
  });
});
