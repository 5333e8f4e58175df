import { expect, test, type Page } from "@playwright/test";
import { LOCALES, LOCALE_NAMES, type Locale } from "@/lib/i18n/locales";
import { MESSAGES } from "@/lib/i18n/messages";
import { LOAD_TOOLS } from "@/lib/validations/run";
import { CARD_TERMS, englishWordsIn, missingKeysIn } from "../tests/support/untranslated";
import { closeContexts, disconnect } from "./support";
import { DESKTOP, PROJECTOR, expectAccessible, expectInFirstScreen, expectNothingWider, linesOf } from "./room-checks";

/**
 * Every page a person sees, in each language the browser asks for: no message key shown in place
 * of its text, and on a non-English page no English word but names, units, codes and the cards'
 * commands and terms. The store, the sign-in form, the dashboard, the whole lab (every card),
 * the projector, a load run's page and its sale's holder timeline (under `none`: oversell and
 * overlaps to put in words), and the not-found page.
 */

test.afterEach(closeContexts);
test.afterAll(disconnect);

const BROWSER_LOCALE: Record<Locale, string> = { en: "en-US", ko: "ko-KR", ja: "ja-JP", "zh-CN": "zh-CN" };
const NAMESPACES = Object.keys(MESSAGES.en);

/**
 * Message keys and English words on the page. Names it may show besides: the load tools (a run's
 * tool, `node` or `k6`) and the load driver's buyer ids (`node-r4-0`: tool, run, buyer).
 */
const NAMES = [...LOAD_TOOLS];
const DRIVER_BUYER = /\b(?:node|k6)-r\d+-\d+\b/g;

async function wordsLeft(page: Page, locale: Locale): Promise<{ keys: string[]; english: string[] }> {
  const text = (await page.locator("body").innerText()).replace(DRIVER_BUYER, " ");
  return { keys: missingKeysIn(text, NAMESPACES), english: locale === "en" ? [] : englishWordsIn(text, [...NAMES, ...CARD_TERMS]) };
}

/**
 * What the instructor came for is on the first screen of the dashboard and the lab, at a projector's
 * 1280 × 720 and a desktop's 1920 × 1080; no page is wider than its window or cuts a card or table
 * off; and axe-core finds no serious violation on any of them (e2e/room-checks.ts).
 */
async function whatTheRoomSees(page: Page, name: string, runId: number): Promise<void> {
  for (const size of [PROJECTOR, DESKTOP]) {
    await page.setViewportSize(size);
    const at = `${name} at ${size.width}×${size.height}`;
    if (name === "dashboard") {
      await expectInFirstScreen(page, page.getByTestId("faults-panel"), `the faults' line, ${at}`);
      await expectInFirstScreen(page, page.getByTestId("sale-verdict"), `the sale's verdict, ${at}`);
      await expectInFirstScreen(page, page.getByTestId("sale-stats"), `the sale's figures, ${at}`);
      await expectInFirstScreen(page, page.locator('select[name="strategy"]'), `the strategy, ${at}`);
      await expectInFirstScreen(page, page.locator('input[name="lockTtlMs"]'), `the knobs, ${at}`);
      await expectInFirstScreen(page, page.locator("form button.primary"), `the run's start, ${at}`);
      await expect(page.getByTestId(`run-row-${runId}`).getByTestId("run-verdict")).toBeVisible();
    }
    if (name === "lab") {
      await expectInFirstScreen(page, page.getByTestId("faults-panel"), `the faults' line, ${at}`);
      await expectInFirstScreen(page, page.getByTestId("scenario-1").locator("h2"), `card 1, ${at}`);
      await expectInFirstScreen(page, page.getByTestId("scenario-1").locator(".toolbar button.primary"), `card 1's Run, ${at}`);
    }
    await expectNothingWider(page, at);
  }
  await page.setViewportSize(PROJECTOR);
  if (name === "dashboard") {
    // Opened, the faults' controls fit too: every server's column of the link grid within the card.
    await page.getByTestId("faults-toggle").click();
    await expect(page.getByTestId("link-grid").or(page.getByTestId("link-grid-unavailable"))).toBeVisible();
    await expectNothingWider(page, "the dashboard with the faults' controls open");
    await page.getByTestId("faults-toggle").click();
  }
  if (name === "lab") {
    // A card's outcome reads in three lines at most (e2e/i18n-lab.spec.ts ran card 1 before this).
    for (const cell of (await page.locator('[data-testid^="scenario-"] td[data-testid="verdict"]').all()).slice(0, 6)) {
      expect(await linesOf(cell), "an outcome's lines").toBeLessThanOrEqual(3);
    }
  }
  await expectAccessible(page, name);
}

for (const locale of LOCALES) {
  test(`every page in ${LOCALE_NAMES[locale]} (${locale}) reads in the language`, async ({ browser }) => {
    const page = await (await browser.newContext({ locale: BROWSER_LOCALE[locale], viewport: { width: 1280, height: 900 } })).newPage();
    const found: Record<string, { keys: string[]; english: string[] }> = {};
    await page.goto("/");
    await expect(page.getByTestId("strategy")).toBeVisible();
    found.store = await wordsLeft(page, locale);
    await page.goto("/admin/login");
    await expect(page.locator('input[name="password"]')).toBeVisible();
    found.login = await wordsLeft(page, locale);
    await page.locator('input[name="password"]').fill(process.env.ADMIN_PASSWORD ?? "");
    await page.locator('form button[type="submit"]').click();
    await expect(page).not.toHaveURL(/\/admin\/login/);
    // A load run under `none` (the dashboard's Run button): the runs table, the charts, the run's page and its
    // sale's holder timeline then have oversell, overlaps and anomalies to put in words.
    const started = await page.request.post("/api/admin/runs", {
      data: { strategy: "none", workMs: 20, lockTtlMs: 5000, waitTimeoutMs: 5000, initialStock: 10, vus: 10, totalRequests: 30, start: true },
    });
    expect(started.status()).toBe(201);
    const runId = ((await started.json()) as { run: { id: number } }).run.id;
    await expect.poll(async () => ((await (await page.request.get(`/api/admin/runs/${runId}`)).json()) as { run: { status: string } }).run.status,
      { timeout: 60_000 }).not.toBe("running");
    const saleId = ((await (await page.request.get("/api/sale")).json()) as { id: number }).id;
    for (const [name, path, ready] of [
      ["dashboard", "/admin", `run-row-${runId}`],
      ["run", `/admin/runs/${runId}`, "timeline-chart"],
      ["lab", "/admin/lab", "scenario-1"],
      ["projector", "/admin/live", "projector-countdown"],
      ["timeline", `/admin/sales/${saleId}/timeline`, "timeline-svg"],
    ] as const) {
      await page.goto(path);
      await expect(page.getByTestId(ready).first()).toBeVisible({ timeout: 15_000 });
      found[name] = await wordsLeft(page, locale);
      await whatTheRoomSees(page, name, runId);
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    await page.goto("/no-such-page");
    found.notFound = await wordsLeft(page, locale);

    const left = Object.entries(found).filter(([, words]) => words.keys.length || words.english.length);
    expect(Object.fromEntries(left), `keys or English left on ${locale} pages`).toEqual({});
  });
}
