/**
 * The holder timeline as a projector shows it: the SVG is 1000 units wide, scaled to its box, so a
 * size in units becomes px × box width / 1000. Drawn on the server (as the conformance report's
 * file is) and read back from its markup.
 */
import { NextIntlClientProvider } from "next-intl";
import { createElement, type ComponentProps } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { TimelineSvg } from "@/app/admin/(signed-in)/sales/[id]/timeline/timeline-svg";
import { LOCALES, type Locale } from "@/lib/i18n/locales";
import { MESSAGES } from "@/lib/i18n/messages";
import { detectAnomalies } from "@/lib/timeline/anomalies";
import type { TimelineEvent } from "@/lib/timeline/events";
import { DIAGRAM, layOut, textUnits } from "@/lib/timeline/layout";

const ms = 1000;
/** A display name as long as a phone lets one type, in a script twice as wide as Latin. */
const LONG_NAME = "김민준이서윤박하은최지";
/** Two buyers under `none`: both read 5 within a few ms (a unit sold twice), then a third one alone; a 5 ms critical section. */
const events: TimelineEvent[] = [
  { atUs: 0, kind: "acquire-sent", holder: "a", instance: "app-1", buyer: LONG_NAME },
  { atUs: 1 * ms, kind: "acquired", holder: "a" },
  { atUs: 2 * ms, kind: "read", holder: "a", stock: 5 },
  { atUs: 3 * ms, kind: "acquire-sent", holder: "b", instance: "app-2", buyer: "buyer-00017" },
  { atUs: 3.5 * ms, kind: "acquired", holder: "b" },
  { atUs: 4 * ms, kind: "read", holder: "b", stock: 5 },
  { atUs: 7 * ms, kind: "write", holder: "a", stock: 4, unit: 5 },
  { atUs: 7.5 * ms, kind: "released", holder: "a" },
  { atUs: 9 * ms, kind: "write", holder: "b", stock: 4, unit: 5 },
  { atUs: 9.5 * ms, kind: "released", holder: "b" },
  { atUs: 400 * ms, kind: "acquire-sent", holder: "c", instance: "app-1", buyer: "buyer-00023" },
  { atUs: 401 * ms, kind: "busy", holder: "c" },
];

function draw(locale: Locale = "en"): string {
  const layout = layOut(events);
  const anomalies = detectAnomalies(events).anomalies;
  return renderToStaticMarkup(
    createElement(
      NextIntlClientProvider,
      // Its children come as createElement's third argument, which its props' type does not know.
      { locale, messages: MESSAGES[locale], timeZone: "UTC" } as ComponentProps<typeof NextIntlClientProvider>,
      createElement(TimelineSvg, { layout, anomalies, texts: anomalies.map((anomaly) => anomaly.note), window: { from: layout.start, to: layout.end }, cursor: Infinity }),
    ),
  );
}

const attribute = (tag: string, name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];

/** Every <text> drawn, with the size it is drawn at (its own, else the SVG's). */
function texts(svg: string) {
  const base = Number(/font-size:\s*([\d.]+)px/.exec(/<svg[^>]*>/.exec(svg)![0])![1]);
  return [...svg.matchAll(/<text([^>]*)>(.*?)<\/text>/gs)].map(([, tag = "", body = ""]) => ({
    size: Number(attribute(tag, "font-size") ?? base),
    x: Number(attribute(tag, "x")),
    y: Number(attribute(tag, "y")),
    testId: attribute(tag, "data-testid"),
    text: body.replace(/<title>.*?<\/title>/gs, "").replace(/<[^>]+>/g, ""),
  }));
}

/** Each lane's labels and bars, by holder (a lane's markup runs to the next lane's). */
function lanes(svg: string) {
  return svg.split('<g data-testid="timeline-lane"').slice(1).map((body) => ({
    holder: attribute(body, "data-holder"),
    labels: texts(`<svg style="font-size:${DIAGRAM.fontSize}px">${body}`).filter((text) => text.testId === "timeline-lane-label"),
    bars: [...body.matchAll(/<rect([^>]*data-testid="timeline-(?:hold|critical)"[^>]*)>/g)].map(([, tag = ""]) => ({ y: Number(attribute(tag, "y")) })),
  }));
}

describe("the holder timeline on a projector", () => {
  it.each(LOCALES)("in %s, draws every text at 12 px or more once its box is 860 px wide (the timeline page's column at 1280×720 is about 900)", (locale) => {
    const drawn = texts(draw(locale));
    expect(drawn.length).toBeGreaterThan(10);
    const small = drawn.filter((text) => (text.size * 860) / DIAGRAM.width < 12);
    expect(small.map((text) => `${text.text} (${text.size})`)).toEqual([]);
  });

  it("writes read and wrote above the bars, not on them", () => {
    const drawn = lanes(draw());
    const both = drawn.filter((lane) => lane.labels.length >= 2);
    expect(both.map((lane) => lane.holder)).toEqual(["a", "b"]);
    for (const lane of drawn) {
      const barTop = Math.min(...lane.bars.map((bar) => bar.y));
      // A label's descenders reach about a quarter of its size below its baseline.
      for (const label of lane.labels) expect(label.y + label.size * 0.25, `${lane.holder}: ${label.text}`).toBeLessThanOrEqual(barTop);
    }
  });

  it("keeps a short critical section's read and wrote apart: neither prints over the other", () => {
    const both = lanes(draw()).filter((lane) => lane.labels.length === 2);
    expect(both).toHaveLength(2);
    for (const { labels: [read, wrote] } of both) {
      expect(read!.text).toBe("read 5");
      expect(wrote!.text).toBe("wrote 4");
      expect(read!.y).toBe(wrote!.y);
      expect(read!.x + textUnits(read!.text)).toBeLessThan(wrote!.x);
    }
  });

  it("cuts a name too long for the names' column at its start, so it ends before the plot", () => {
    const name = texts(draw("ko")).find((text) => text.text.startsWith("…"));
    expect(name?.text).toMatch(/^…[가-힣]+$/);
    expect(LONG_NAME.endsWith(name!.text.slice(1))).toBe(true);
    expect(name!.x + textUnits(name!.text)).toBeLessThanOrEqual(DIAGRAM.left);
  });
});
