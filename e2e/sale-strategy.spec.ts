import { expect, test, type Browser, type Page } from "@playwright/test";
import { resetConfig } from "@/lib/sale/config";
import { blast, PUBLIC_URL } from "../tests/support/stack";
import { closeContexts, disconnect, prepareSale } from "./support";
import { PROJECTOR } from "./room-checks";

/**
 * Every figure under the strategy that made it: a sale's figures keep the strategy its orders were
 * made under after the strategy is switched without a new sale, on /api/sale, the dashboard, the
 * projector and the timeline, and a later strategy's orders are counted apart. (What the room sees
 * of each page, per language, is checked in e2e/i18n-pages.spec.ts and e2e/i18n-workshop.spec.ts.)
 */

test.afterEach(closeContexts);
test.afterAll(async () => {
  await resetConfig();
  await disconnect();
});

async function signIn(browser: Browser): Promise<Page> {
  const page = await (await browser.newContext({ locale: "en-US", viewport: PROJECTOR })).newPage();
  await page.goto("/admin/login");
  await page.locator('input[name="password"]').fill(process.env.ADMIN_PASSWORD ?? "");
  await page.locator('form button[type="submit"]').click();
  await expect(page).toHaveURL(/\/admin$/);
  return page;
}

test("every page names the strategy that made a sale's figures, after the strategy is switched mid-sale", async ({ browser }) => {
  // Eight buyers at once under none, with stock to spare: units sold twice, and stock left for later.
  await prepareSale({ strategy: "none", workMs: 300 }, 20);
  const crowd = await blast(PUBLIC_URL, 8);
  expect(crowd.bought).toBe(8);
  const admin = await signIn(browser);
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
