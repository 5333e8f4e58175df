import { expect, test, type Page } from "@playwright/test";
import { getNetwork, stackControl } from "@/lib/stack/control";
import { disconnect, prepareSale } from "./support";

test.afterAll(disconnect);

async function signIn(page: Page) {
  await page.goto("/admin");
  await expect(page).toHaveURL(/\/admin\/login/);
  await page.getByLabel("Password").fill(process.env.ADMIN_PASSWORD ?? "");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { name: "Admin dashboard" })).toBeVisible();
}

async function runOnce(page: Page, strategy: string) {
  const form = page.getByRole("form", { name: "Strategy and knobs" });
  await form.getByLabel("Strategy").selectOption(strategy);
  await form.getByLabel("Simulated work (ms)").fill("5");
  await form.getByLabel("Lock TTL (ms)").fill("5000");
  await form.getByLabel("Wait timeout (ms)").fill("20000");
  await form.getByLabel("Initial stock").fill("20");
  await form.getByLabel("Virtual users").fill("40");
  await form.getByLabel("Amount").fill("120");
  await form.getByRole("button", { name: "Start run" }).click();

  const progress = page.getByTestId("run-progress");
  await expect(progress).toContainText(strategy);
  await expect(progress.getByRole("progressbar")).toHaveAttribute("aria-valuenow", "100", { timeout: 60_000 });
  await expect(progress).toContainText("(completed)", { timeout: 60_000 });
  const heading = await progress.getByRole("heading").textContent();
  return Number(/Run #(\d+)/.exec(heading ?? "")?.[1]);
}

test("the dashboard refuses strangers and wrong passwords", async ({ page }) => {
  await page.goto("/admin");
  await expect(page).toHaveURL(/\/admin\/login\?next=%2Fadmin/);
  await page.getByLabel("Password").fill("wrong-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByText("Wrong password.")).toBeVisible();
  await expect(page).toHaveURL(/\/admin\/login/);
});

test("an instructor runs none then token-lua and sees FAIL with oversell, then PASS", async ({ page }) => {
  await signIn(page);

  const unsafeRun = await runOnce(page, "none");
  const unsafeRow = page.getByTestId(`run-row-${unsafeRun}`);
  await expect(unsafeRow).toContainText("FAIL");
  expect(Number(await unsafeRow.getByTestId("oversell").textContent())).toBeGreaterThan(0);
  expect(Number(await unsafeRow.getByTestId("run-double-sold").textContent())).toBeGreaterThan(0);

  const safeRun = await runOnce(page, "token-lua");
  const safeRow = page.getByTestId(`run-row-${safeRun}`);
  await expect(safeRow).toContainText("PASS");
  await expect(safeRow.getByTestId("oversell")).toHaveText("0");
  await expect(safeRow.getByTestId("run-double-sold")).toHaveText("0");
  await expect(safeRow.getByTestId("run-lost-units")).toHaveText("0");
  // The sale card counts the sale that just ran, per unit.
  await expect(page.getByTestId("sale-double-sold")).toHaveText("0");
  await expect(page.getByTestId("sale-verdict")).toContainText("PASS");

  // Units sold twice per strategy, beside oversell.
  await expect(page.getByTestId("double-sold-chart").locator(".recharts-wrapper > svg.recharts-surface")).toContainText("none");
  // Each series is named: the mean over runs and the worst run.
  await expect(page.getByTestId("double-sold-chart").locator(".recharts-legend-wrapper")).toContainText("mean over runs");
  await expect(page.getByTestId("double-sold-chart").locator(".recharts-legend-wrapper")).toContainText("worst run");

  // The strategies are the bar chart's x-axis labels.
  const chart = page.getByTestId("oversell-chart").locator(".recharts-wrapper > svg.recharts-surface");
  await expect(chart).toContainText("none");
  await expect(chart).toContainText("token-lua");

  // The store shows the strategy now active, for the class to see.
  await page.goto("/");
  await expect(page.getByTestId("strategy")).toHaveText("token-lua");

  await page.goto(`/admin/runs/${unsafeRun}`);
  await expect(page.getByTestId("timeline-chart")).toBeVisible();
  await expect(page.getByRole("heading", { level: 1 })).toContainText("FAIL");
});

test("an instructor draws a grudge on the link grid, applies it, sees it in force, and heals it", async ({ page }) => {
  await signIn(page);
  // The grid is folded under the faults' one-line summary: the dashboard opens on its sale and strategy.
  const grid = page.getByTestId("link-grid");
  await expect(grid).toBeHidden();
  await page.getByTestId("faults-toggle").click();
  await expect(grid).toBeVisible();
  // One click: cut both ways. Two clicks: only the client's packets to the server are dropped.
  await grid.getByTestId("link-app-1-redis-4").click();
  await grid.getByTestId("link-app-2-redis-2").click();
  await grid.getByTestId("link-app-2-redis-2").click();
  await expect(grid.getByTestId("link-app-1-redis-4")).toHaveAttribute("aria-label", "app-1 to redis-4: cut both ways");
  await expect(grid).toContainText("Not applied yet.");
  expect((await getNetwork()).cuts).toEqual([]);

  // Healed whatever happens: cuts left in force would fail every spec after this one.
  try {
    await grid.getByRole("button", { name: "Apply these cuts" }).click();
    const panel = page.getByTestId("faults-panel");
    await expect(panel.getByRole("status")).toHaveText("2 cuts in force.");
    await expect(panel.getByTestId("cut-in-force")).toHaveCount(2);
    await expect(panel).toContainText("link app-1 ⇹ redis-4 is cut both ways");
    await expect(panel).toContainText("link app-2 → redis-2 is cut (app-2's packets dropped)");
    // Folded, the panel still says what is in force, in one line.
    await page.getByTestId("faults-toggle").click();
    await expect(grid).toBeHidden();
    await expect(panel.getByTestId("faults-summary")).toHaveText("2 links cut");
    await page.getByTestId("faults-toggle").click();
    // The stack runner holds the same grudge (its nft rules are what drop the packets).
    expect([...(await getNetwork()).cuts].sort((a, b) => a.client.localeCompare(b.client))).toEqual([
      { client: "app-1", server: "redis-4", direction: "both" },
      { client: "app-2", server: "redis-2", direction: "to-server" },
    ]);

    await grid.getByRole("button", { name: "Heal all" }).click();
    await expect(panel.getByRole("status")).toHaveText("Every link healed.");
    await expect(panel.getByTestId("cut-in-force")).toHaveCount(0);
    await expect(grid.getByTestId("link-app-1-redis-4")).toHaveText("·");
    expect((await getNetwork()).cuts).toEqual([]);
  } finally {
    await stackControl("/network/heal").catch(() => {});
  }
});

test("with Postgres stopped, the sale card and the projector say their figures are old, then show current ones again", async ({ page }) => {
  await prepareSale({ strategy: "token-lua", workMs: 0 }, 20);
  await signIn(page);
  await expect(page.getByTestId("sale-verdict")).toBeVisible();
  const projector = await page.context().newPage();
  await projector.goto("/admin/live");
  await expect(projector.getByTestId("acc-verdict")).toBeVisible();
  await expect(page.getByTestId("sale-stale")).toHaveCount(0);
  await expect(projector.getByTestId("acc-stale")).toHaveCount(0);

  await stackControl("/postgres/stop");
  try {
    // The dashboard's poll gets 503 unavailable: its card keeps the last figures, marked as old.
    await expect(page.getByTestId("sale-stale")).toBeVisible({ timeout: 15_000 });
    await expect(page.getByTestId("sale-stale")).toContainText("They are not current");
    // Buyers are turned away before they take a unit, so nothing changes; a switch of strategy (kept
    // in Redis) does, and the projector's new figures cannot be counted without the orders.
    expect((await page.request.put("/api/admin/config", { data: { strategy: "redlock" } })).status()).toBe(200);
    await expect(projector.getByTestId("acc-stale")).toBeVisible({ timeout: 15_000 });
    // The stock and the strategy it shows are as old as its accounting (the switch is not among them), and say so.
    await expect(projector.getByTestId("drop-stale")).toBeVisible();
    await expect(projector.getByTestId("projector-figures")).toHaveClass(/stale/);
    await expect(projector.getByTestId("projector-strategy-line")).toHaveClass(/stale/);
  } finally {
    await stackControl("/postgres/start");
  }
  // Once Postgres answers, both read current figures again with no reload, the switch among them.
  await expect(page.getByTestId("sale-stale")).toHaveCount(0, { timeout: 30_000 });
  await expect(projector.getByTestId("acc-stale")).toHaveCount(0, { timeout: 30_000 });
  await expect(projector.getByTestId("drop-stale")).toHaveCount(0);
  await expect(projector.getByTestId("projector-figures")).not.toHaveClass(/stale/);
  await expect(projector.getByTestId("projector-strategy")).toHaveText("redlock");
  await expect(projector.getByTestId("acc-verdict")).toHaveText("PASS", { timeout: 30_000 });
  await projector.close();
});

test("with Redis node 1 killed, the pages say so and take nothing; started again, the same sale reads on with no reload, the instructor still signed in", async ({ page }) => {
  await prepareSale({ strategy: "token-lua", workMs: 0 }, 20);
  await signIn(page);
  await expect(page.getByTestId("sale-verdict")).toHaveText("PASS");
  const projector = await page.context().newPage();
  await projector.goto("/admin/live");
  await expect(projector.getByTestId("acc-verdict")).toBeVisible();
  const store = await page.context().newPage();
  await store.goto("/");
  await expect(store.getByTestId("stock-count")).toHaveText("20");
  await store.getByRole("button", { name: "Buy now" }).click();
  await expect(store.getByTestId("stock-count")).toHaveText("19");

  await stackControl("/redis/1/kill");
  try {
    // The store's own node is gone: the figures are marked old, the store page is reconnecting, a tap is refused.
    await expect(page.getByTestId("sale-stale")).toBeVisible({ timeout: 15_000 });
    await expect(projector.getByTestId("acc-stale")).toBeVisible({ timeout: 15_000 });
    await expect(store.getByText("reconnecting…")).toBeVisible({ timeout: 15_000 });
    await store.getByRole("button", { name: "Buy now" }).click();
    await expect(store.getByTestId("outcome")).toHaveClass(/error/);
  } finally {
    await stackControl("/redis/1/start");
  }
  // Back from its append-only file: the same sale, 19 left, current again on every page with no reload.
  await expect(page.getByTestId("sale-stale")).toHaveCount(0, { timeout: 30_000 });
  await expect(projector.getByTestId("acc-stale")).toHaveCount(0, { timeout: 30_000 });
  await expect(store.getByText("reconnecting…")).toHaveCount(0, { timeout: 30_000 });
  await expect(store.getByTestId("stock-count")).toHaveText("19");
  await expect(page.getByTestId("sale-verdict")).toHaveText("PASS");
  await expect(page).toHaveURL(/\/admin$/);
  await store.getByRole("button", { name: "Buy now" }).click();
  await expect(store.getByTestId("stock-count")).toHaveText("18", { timeout: 10_000 });
  await projector.close();
  await store.close();
});
