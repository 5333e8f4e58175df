import { expect, type Locator, type Page } from "@playwright/test";

/**
 * What the room sees, checked the same way on every page (e2e/i18n-pages.spec.ts, the admin pages;
 * e2e/i18n-workshop.spec.ts, the projector and a phone through a drop; per language): what the room
 * came for is on the first screen, nothing is wider than its box, every tap target on a phone is
 * 44 px, and axe-core finds no serious or critical violation (contrast among them).
 */

export const PROJECTOR = { width: 1280, height: 720 };
export const DESKTOP = { width: 1920, height: 1080 };
export const PHONE = { width: 360, height: 740 };
/** The projector's "OK" green (app/globals.css --ok): never the colour of "Sold out" on a FAIL. */
export const OK_GREEN = "rgb(35, 112, 50)";

/** The element is drawn, whole, within the window as it first shows (no scrolling). */
export async function expectInFirstScreen(page: Page, locator: Locator, what: string): Promise<void> {
  await expect(locator, what).toBeVisible();
  const box = await locator.boundingBox();
  const viewport = page.viewportSize()!;
  expect(box, what).not.toBeNull();
  expect(box!.y, `${what}: top`).toBeGreaterThanOrEqual(0);
  expect(box!.y + box!.height, `${what}: bottom at ${Math.round(box!.y + box!.height)} of ${viewport.height}`).toBeLessThanOrEqual(viewport.height);
  expect(box!.x + box!.width, `${what}: right edge`).toBeLessThanOrEqual(viewport.width);
}

/** No page wider than its window, and no card, table box or grid cut off by its own box. */
export async function expectNothingWider(page: Page, where: string): Promise<void> {
  const wide = await page.evaluate(() => {
    const found: string[] = [];
    const root = document.documentElement;
    if (root.scrollWidth > root.clientWidth) found.push(`page ${root.scrollWidth} > ${root.clientWidth}`);
    for (const element of document.querySelectorAll<HTMLElement>(".card, .table-scroll, .link-grid-scroll, .site-header, .join-row")) {
      if (element.offsetParent === null) continue; // folded away
      if (element.scrollWidth > element.clientWidth + 1) {
        found.push(`${element.className} ${element.getAttribute("data-testid") ?? ""}: ${element.scrollWidth} > ${element.clientWidth}`);
      }
    }
    return found;
  });
  expect(wide, `wider than its box on ${where}`).toEqual([]);
}

/** axe-core's serious and critical findings (WCAG 2.1 A and AA: contrast, names, roles…). */
export async function expectAccessible(page: Page, where: string): Promise<void> {
  await page.addScriptTag({ path: require.resolve("axe-core/axe.min.js") });
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document, options: object) => Promise<{ violations: { id: string; impact: string | null; nodes: { target: string[] }[] }[] }> } }).axe;
    const result = await axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] } });
    return result.violations
      .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
      .map((violation) => `${violation.id}: ${violation.nodes.slice(0, 3).map((node) => node.target.join(" ")).join(", ")}`);
  });
  expect(violations, `axe on ${where}`).toEqual([]);
}

export const fontPx = (locator: Locator) => locator.evaluate((element) => parseFloat(getComputedStyle(element).fontSize));

/** Every visible link, button, menu and field is at least 44 px tall and wide (a thumb's width). */
export async function expectTapTargets(page: Page): Promise<void> {
  const small = await page.evaluate(() => {
    const found: string[] = [];
    for (const element of document.querySelectorAll<HTMLElement>("a, button, select, input")) {
      const box = element.getBoundingClientRect();
      if (box.width === 0 || box.height === 0) continue;
      if (box.height < 44 || box.width < 44) found.push(`${element.tagName.toLowerCase()} "${(element.textContent ?? "").trim().slice(0, 20)}" ${Math.round(box.width)}×${Math.round(box.height)}`);
    }
    return found;
  });
  expect(small, "tap targets under 44 px").toEqual([]);
}

/**
 * Lines as drawn: the distinct rows the element's text boxes sit on (a CJK fallback font makes a
 * line taller than line-height says, so heights alone would miscount).
 */
export function linesOf(element: Locator): Promise<number> {
  return element.evaluate((node) => {
    const range = document.createRange();
    range.selectNodeContents(node);
    const tops: number[] = [];
    for (const rect of range.getClientRects()) {
      if (rect.width > 0 && !tops.some((top) => Math.abs(top - rect.top) < rect.height / 2)) tops.push(rect.top);
    }
    return tops.length;
  });
}
