import path from "node:path";
import { expect, test, type Browser, type Locator, type Page } from "@playwright/test";
import { LOCALES, LOCALE_NAMES, type Locale } from "@/lib/i18n/locales";
import { resetConfig } from "@/lib/sale/config";
import { blast, PUBLIC_URL } from "../tests/support/stack";
import { closeContexts, disconnect, prepareSale } from "./support";

/**
 * What the room sees, per language, as an instructor and a class would look: the projector at
 * 1280 × 720 (and a desktop's 1920 × 1080) after a drop that failed, a phone at 360 × 740 through
 * the drop, the dashboard, the lab, a run's page and the sale's holder timeline. On every page: what
 * the room came for is on the first screen, nothing is wider than its box, and axe-core finds no
 * serious or critical violation (contrast among them). On the phone: every tap target is 44 px or
 * more, and the answer to a tap is in view. Screenshots are kept in test-results/room/.
 */

test.afterEach(closeContexts);
test.afterAll(async () => {
  await resetConfig();
  await disconnect();
});

const BROWSER_LOCALE: Record<Locale, string> = { en: "en-US", ko: "ko-KR", ja: "ja-JP", "zh-CN": "zh-CN" };
const PERSON: Record<Locale, string> = { en: "Ana", ko: "민준", ja: "さくら", "zh-CN": "李娜" };
const SHOTS = path.join("test-results", "room");
const PROJECTOR = { width: 1280, height: 720 };
const DESKTOP = { width: 1920, height: 1080 };
const PHONE = { width: 360, height: 740 };
/** The projector's "OK" green (app/globals.css --ok): never the colour of "Sold out" on a FAIL. */
const OK_GREEN = "rgb(35, 112, 50)";

async function signIn(browser: Browser, locale: Locale): Promise<Page> {
  const page = await (await browser.newContext({ locale: BROWSER_LOCALE[locale], viewport: PROJECTOR })).newPage();
  await page.goto("/admin/login");
  await page.locator('input[name="password"]').fill(process.env.ADMIN_PASSWORD ?? "");
  await page.locator('form button[type="submit"]').click();
  await expect(page).toHaveURL(/\/admin$/);
  return page;
}

/** The element is drawn, whole, within the window as it first shows (no scrolling). */
async function expectInFirstScreen(page: Page, locator: Locator, what: string): Promise<void> {
  await expect(locator, what).toBeVisible();
  const box = await locator.boundingBox();
  const viewport = page.viewportSize()!;
  expect(box, what).not.toBeNull();
  expect(box!.y, `${what}: top`).toBeGreaterThanOrEqual(0);
  expect(box!.y + box!.height, `${what}: bottom at ${Math.round(box!.y + box!.height)} of ${viewport.height}`).toBeLessThanOrEqual(viewport.height);
  expect(box!.x + box!.width, `${what}: right edge`).toBeLessThanOrEqual(viewport.width);
}

/** No page wider than its window, and no card, table box or grid cut off by its own box. */
async function expectNothingWider(page: Page, where: string): Promise<void> {
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
async function expectAccessible(page: Page, where: string): Promise<void> {
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

const fontPx = (locator: Locator) => locator.evaluate((element) => parseFloat(getComputedStyle(element).fontSize));

/** Every visible link, button, menu and field is at least 44 px tall and wide (a thumb's width). */
async function expectTapTargets(page: Page): Promise<void> {
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

for (const locale of LOCALES) {
  test(`what the room sees in ${LOCALE_NAMES[locale]} (${locale})`, async ({ browser }) => {
    test.setTimeout(180_000);
    const admin = await signIn(browser, locale);

    // A small load run under none, for the runs table, the charts and a run's page.
    const started = await admin.request.post("/api/admin/runs", {
      data: { strategy: "none", workMs: 20, lockTtlMs: 5000, waitTimeoutMs: 5000, initialStock: 10, vus: 10, totalRequests: 30, start: true },
    });
    expect(started.status()).toBe(201);
    const runId = ((await started.json()) as { run: { id: number } }).run.id;
    await expect.poll(async () => ((await (await admin.request.get(`/api/admin/runs/${runId}`)).json()) as { run: { status: string } }).run.status,
      { timeout: 60_000 }).not.toBe("running");

    // A phone joins; a drop of 3 units under none opens 8 s later, and the phone waits for it.
    const phone = await (await browser.newContext({ locale: BROWSER_LOCALE[locale], viewport: PHONE, isMobile: true, hasTouch: true })).newPage();
    await phone.goto("/");
    const drop = await admin.request.post("/api/admin/drop", { data: { stock: 3, countdownS: 8, strategy: "none", workMs: 400 } });
    expect(drop.status()).toBe(201);
    await phone.locator("#display-name").fill(PERSON[locale]);
    await phone.locator('form.join-form button[type="submit"]').click();
    await expect(phone.getByTestId("me")).toHaveText(PERSON[locale]);
    const buy = phone.locator("button.buy");
    // Waiting for the countdown: the button is readable (axe checks its contrast), and on the first screen.
    await expect(buy).toBeDisabled();
    await expectInFirstScreen(phone, buy, "the phone's Buy button");
    await expectTapTargets(phone);
    await expectNothingWider(phone, "the phone");
    await expectAccessible(phone, "the phone, counting down");

    // The drop opens: the phone and seven load buyers at once, 400 ms of work under no lock.
    await expect(buy).toBeEnabled({ timeout: 15_000 });
    const [, crowd] = await Promise.all([buy.click(), blast(PUBLIC_URL, 7)]);
    expect(crowd.bought).toBeGreaterThan(0);
    const outcome = phone.getByTestId("outcome");
    await expect(outcome).toBeVisible({ timeout: 20_000 });
    // The answer is where the thumb is: on the first screen, under the button, in a live region.
    await expectInFirstScreen(phone, outcome, "the answer to the tap");
    await expect(phone.locator(".outcome-slot[role='status']")).toContainText(await outcome.innerText());
    await expectTapTargets(phone);
    await expectNothingWider(phone, "the phone after its tap");
    await expectAccessible(phone, "the phone after its tap");
    await phone.screenshot({ path: path.join(SHOTS, `${locale}-phone.png`) });

    // The projector after the drop: its state, the stock, the verdict, the units sold twice and
    // the first who-got-one lines, all on the first screen, large enough for the back of the room.
    await admin.goto("/admin/live");
    await expect(admin.getByTestId("acc-verdict")).toHaveText("FAIL", { timeout: 20_000 });
    await expect(admin.getByTestId("acc-strategy")).toHaveText("none");
    const stock = admin.getByTestId("projector-stock");
    const verdict = admin.getByTestId("acc-verdict");
    const twice = admin.getByTestId("projector-double-sold");
    const firstWinner = admin.getByTestId("winners").locator("li").first();
    for (const size of [PROJECTOR, DESKTOP]) {
      await admin.setViewportSize(size);
      for (const [locator, what] of [[admin.getByTestId("projector-countdown"), "the drop's state"], [stock, "the stock"], [verdict, "the verdict"],
        [twice, "units sold twice"], [firstWinner, "who got one"]] as const) {
        await expectInFirstScreen(admin, locator, `${what} at ${size.width}×${size.height}`);
      }
      await expectNothingWider(admin, `the projector at ${size.width}`);
    }
    await admin.setViewportSize(PROJECTOR);
    expect(Number(await twice.innerText())).toBeGreaterThan(0);
    expect(await fontPx(stock)).toBeGreaterThanOrEqual(40);
    expect(await fontPx(twice)).toBeGreaterThanOrEqual(40);
    expect(await fontPx(verdict)).toBeGreaterThanOrEqual(await fontPx(stock));
    expect(await fontPx(admin.locator(".big-figures .caption").first())).toBeGreaterThanOrEqual(24);
    expect(await fontPx(firstWinner)).toBeGreaterThanOrEqual(24);
    // "Sold out" (or "open") on a drop that failed is never in the colour that says all is well.
    expect(await admin.getByTestId("projector-countdown").evaluate((element) => getComputedStyle(element).color)).not.toBe(OK_GREEN);
    await expectAccessible(admin, "the projector");
    await admin.screenshot({ path: path.join(SHOTS, `${locale}-projector.png`) });
    const saleId = ((await (await admin.request.get("/api/sale")).json()) as { id: number }).id;

    // The dashboard: the sale's verdict, the strategy and the run's start on the first screen, at both sizes.
    await admin.goto("/admin");
    for (const size of [PROJECTOR, DESKTOP]) {
      await admin.setViewportSize(size);
      await expectInFirstScreen(admin, admin.getByTestId("faults-panel"), "the faults' line");
      await expectInFirstScreen(admin, admin.getByTestId("sale-verdict"), "the sale's verdict");
      await expectInFirstScreen(admin, admin.getByTestId("sale-stats"), "the sale's figures");
      await expectInFirstScreen(admin, admin.locator('select[name="strategy"]'), "the strategy");
      await expectInFirstScreen(admin, admin.locator('input[name="lockTtlMs"]'), "the knobs");
      await expectInFirstScreen(admin, admin.locator("form button.primary"), "the run's start");
      await expect(admin.getByTestId(`run-row-${runId}`).getByTestId("run-verdict")).toBeVisible();
      await expectNothingWider(admin, `the dashboard at ${size.width}`);
    }
    await admin.setViewportSize(PROJECTOR);
    // Opened, the faults' controls fit too: every server's column of the link grid within the card.
    await admin.getByTestId("faults-toggle").click();
    await expect(admin.getByTestId("link-grid").or(admin.getByTestId("link-grid-unavailable"))).toBeVisible();
    await expectNothingWider(admin, "the dashboard with the faults' controls open");
    await admin.getByTestId("faults-toggle").click();
    await expectAccessible(admin, "the dashboard");
    await admin.screenshot({ path: path.join(SHOTS, `${locale}-dashboard.png`), fullPage: true });

    // The lab opens on its cards.
    await admin.goto("/admin/lab");
    for (const size of [PROJECTOR, DESKTOP]) {
      await admin.setViewportSize(size);
      await expectInFirstScreen(admin, admin.getByTestId("faults-panel"), "the faults' line");
      await expectInFirstScreen(admin, admin.getByTestId("scenario-1").locator("h2"), "card 1");
      await expectInFirstScreen(admin, admin.getByTestId("scenario-1").locator(".toolbar button.primary"), "card 1's Run");
      await expectNothingWider(admin, `the lab at ${size.width}`);
    }
    await admin.setViewportSize(PROJECTOR);
    // A card's outcome reads in three lines at most (the lab spec ran card 1 before this one).
    const outcomes = admin.locator('[data-testid^="scenario-"] td[data-testid="verdict"]');
    for (const cell of (await outcomes.all()).slice(0, 6)) {
      // Lines as drawn: the distinct rows the cell's text boxes sit on (a CJK fallback font makes a
      // line taller than line-height says, so heights alone would miscount).
      const lines = await cell.evaluate((element) => {
        const range = document.createRange();
        range.selectNodeContents(element);
        const tops: number[] = [];
        for (const rect of range.getClientRects()) {
          if (rect.width > 0 && !tops.some((top) => Math.abs(top - rect.top) < rect.height / 2)) tops.push(rect.top);
        }
        return tops.length;
      });
      expect(lines, `an outcome of ${lines} lines`).toBeLessThanOrEqual(3);
    }
    await expectAccessible(admin, "the lab");

    // A run's page, and the drop's holder timeline.
    await admin.goto(`/admin/runs/${runId}`);
    await expect(admin.getByTestId("timeline-chart")).toBeVisible();
    await expectNothingWider(admin, "the run's page");
    await expectAccessible(admin, "the run's page");
    await admin.goto(`/admin/sales/${saleId}/timeline`);
    await expect(admin.getByTestId("timeline-svg")).toBeVisible();
    await expectNothingWider(admin, "the holder timeline");
    await expectAccessible(admin, "the holder timeline");
  });
}

test("every page names the strategy that made a sale's figures, after the strategy is switched mid-sale", async ({ browser }) => {
  // Eight buyers at once under none, with stock to spare: units sold twice, and stock left for later.
  await prepareSale({ strategy: "none", workMs: 300 }, 20);
  const crowd = await blast(PUBLIC_URL, 8);
  expect(crowd.bought).toBe(8);
  const admin = await signIn(browser, "en");
  // Switched without a new sale: what was sold under none stays none's.
  expect((await admin.request.put("/api/admin/config", { data: { strategy: "token-lua", workMs: 5 } })).status()).toBe(200);
  const sale = (await (await admin.request.get("/api/sale")).json()) as { id: number; strategy: string; strategyNow: string; strategies: { strategy: string; doubleSold: number }[] };
  expect(sale).toMatchObject({ strategy: "none", strategyNow: "token-lua" });
  expect(sale.strategies.map((share) => share.strategy)).toEqual(["none"]);
  expect(sale.strategies[0]!.doubleSold).toBeGreaterThan(0);

  await admin.goto("/admin");
  await expect(admin.getByTestId("sale-strategy")).toHaveText("none");
  await expect(admin.getByTestId("strategy-switched")).toContainText("token-lua");
  await admin.goto("/admin/live");
  await expect(admin.getByTestId("acc-strategy")).toHaveText("none");
  await admin.goto(`/admin/sales/${sale.id}/timeline`);
  await expect(admin.getByTestId("sale-strategy")).toHaveText("none");

  // Buyers under token-lua join the same sale: each strategy's figures are its own.
  const later = await blast(PUBLIC_URL, 2);
  expect(later.bought).toBe(2);
  const mixed = (await (await admin.request.get("/api/sale")).json()) as typeof sale;
  expect(mixed.strategy).toBe("none");
  expect(mixed.strategies.map((share) => share.strategy)).toEqual(["none", "token-lua"]);
  expect(mixed.strategies[1]).toMatchObject({ strategy: "token-lua", doubleSold: 0 });
  await admin.goto("/admin");
  await expect(admin.getByTestId("sale-strategy")).toHaveText("none + token-lua");
  await expect(admin.getByTestId("strategy-share-none")).toContainText("sold twice");
  await expect(admin.getByTestId("strategy-share-token-lua")).toContainText("0 sold twice");
});
