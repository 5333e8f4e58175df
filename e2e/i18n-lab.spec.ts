import path from "node:path";
import { expect, test } from "@playwright/test";
import { LOCALES, LOCALE_NAMES, type Locale } from "@/lib/i18n/locales";
import { MESSAGES } from "@/lib/i18n/messages";
import { CARD_TERMS, englishWordsIn, missingKeysIn } from "../tests/support/untranslated";
import { closeContexts, disconnect } from "./support";

/**
 * A lab card in each language: the instructor's browser speaks it, card 1 (no lock) runs, and the
 * card — its chrome, its outcome and its own words (messages/lab/<locale>.json) — is in that
 * language, with no key missing.
 */

test.afterEach(closeContexts);
test.afterAll(disconnect);

const BROWSER_LOCALE: Record<Locale, string> = { en: "en-US", ko: "ko-KR", ja: "ja-JP", "zh-CN": "zh-CN" };
const NAMESPACES = Object.keys(MESSAGES.en);

for (const locale of LOCALES) {
  test(`the lab in ${LOCALE_NAMES[locale]} (${locale}): card 1 runs and reads in the language`, async ({ browser }) => {
    const page = await (await browser.newContext({ locale: BROWSER_LOCALE[locale], viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto("/admin/lab");
    await expect(page).toHaveURL(/\/admin\/login/);
    await page.locator('input[name="password"]').fill(process.env.ADMIN_PASSWORD ?? "");
    await page.locator('form button[type="submit"]').click();
    const messages = MESSAGES[locale];
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(messages.common.pitfallLab);

    const card = page.getByTestId("scenario-1");
    const run = card.locator(".toolbar button.primary");
    await expect(run).toBeEnabled({ timeout: 30_000 });
    await run.click();
    // The card keeps its last run's verdict (an earlier test's): first see this click start a new run, or the
    // checks below would read the old verdict while the new run still holds the stack.
    await expect(card.getByTestId("verdict")).toContainText(new RegExp(`${messages.lab.caseWaiting}|${messages.lab.caseRunning}`));
    await expect(card.getByTestId("verdict")).toContainText(messages.lab.pitfallAppeared, { timeout: 60_000 });
    await expect(card.getByTestId("verdict")).toContainText(messages.lab.asPredicted);
    // The button comes back only once the run has ended and let go of the stack: the next test may start a run.
    await expect(card.getByRole("button", { name: messages.lab.run, exact: true })).toBeEnabled({ timeout: 60_000 });

    for (const part of [page.locator(".dashboard > .toolbar"), page.locator(".dashboard > p.muted"), page.getByTestId("faults-panel").locator("h2"), card]) {
      const text = await part.innerText();
      expect(missingKeysIn(text, NAMESPACES)).toEqual([]);
      if (locale !== "en") expect(englishWordsIn(text, CARD_TERMS), `English left on the ${locale} lab`).toEqual([]);
    }
    await card.screenshot({ path: path.join("test-results", "i18n", `${locale}-lab-card.png`) });
  });
}
