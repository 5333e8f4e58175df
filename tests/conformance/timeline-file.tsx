import { NextIntlClientProvider } from "next-intl";
import { renderToStaticMarkup } from "react-dom/server";
import { TimelineSvg } from "@/app/admin/(signed-in)/sales/[id]/timeline/timeline-svg";
import { MESSAGES } from "@/lib/i18n/messages";
import { layOut } from "@/lib/timeline/layout";
import { getTimeline } from "@/lib/timeline/store";

/**
 * A sale's holder timeline as a standalone SVG file: the diagram the admin's timeline page draws
 * (the same component, in English: docs/conformance.md is English), its whole span, every anomaly
 * marked. Undefined when nothing was recorded.
 */
export async function timelineSvgFile(saleId: number): Promise<string | undefined> {
  const view = await getTimeline(saleId, async () => new Map());
  if (!view || view.events.length === 0) return undefined;
  const layout = layOut(view.events);
  const svg = renderToStaticMarkup(
    <NextIntlClientProvider locale="en" messages={MESSAGES.en} timeZone="UTC">
      <TimelineSvg layout={layout} anomalies={view.report.anomalies} texts={view.report.anomalies.map((anomaly) => anomaly.note)}
        window={{ from: layout.start, to: layout.end }} cursor={layout.end} />
    </NextIntlClientProvider>,
  );
  // The page sizes it to its column (width 100%): a file gets its viewBox's width.
  return `<?xml version="1.0" encoding="UTF-8"?>\n${svg.replace('width="100%"', 'width="1000"')}\n`;
}
