import { expect, test } from "@playwright/test";
import { disconnect } from "./support";

test.afterAll(disconnect);

test("a lab case's holder timeline shows the overlap in red; jump and the table view agree", async ({ page }, testInfo) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto("/admin/login?next=/admin/lab");
  await page.getByLabel("Password").fill(process.env.ADMIN_PASSWORD ?? "");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { name: "Pitfall lab" })).toBeVisible();

  // "Work longer than the TTL, even with a token": the lease runs out mid-work, a second buyer
  // takes the lock while the first is still inside.
  const card = page.getByTestId("scenario-7");
  await expect(card.getByRole("button", { name: "Run" })).toBeEnabled({ timeout: 30_000 });
  await card.getByRole("button", { name: "Run" }).click();
  // The card keeps its last run's verdicts: first see this click start a new run.
  await expect(card.getByTestId("verdict").first()).toContainText(/waiting|running/);
  await expect(card.getByTestId("verdict").first()).toContainText("the pitfall appeared", { timeout: 90_000 });

  await card.getByTestId("timeline-link").first().click();
  await expect(page.getByRole("heading", { name: /Holder timeline — sale #\d+/ })).toBeVisible();
  const svg = page.getByTestId("timeline-svg");
  await expect(svg).toBeVisible();
  await expect(page.getByTestId("timeline-overlap").first()).toBeAttached();
  const overlap = page.getByTestId("timeline-overlap").first();
  await expect(overlap).toHaveCSS("fill", /rgb\((2[0-9]{2}), ([0-9]{1,2}|1[0-9]{2}), ([0-9]{1,2}|1[0-9]{2})\)/);

  await page.getByTestId("timeline-jump").click();
  const anomalies = page.getByTestId("timeline-anomalies");
  await expect(anomalies.locator('[data-focused="true"]')).toHaveCount(1);
  await expect(anomalies.locator('[data-focused="true"]')).toContainText(/were in the critical section at the same time|both read/);

  await testInfo.attach("holder-timeline", { body: await page.screenshot({ fullPage: true }), contentType: "image/png" });
  await page.screenshot({ path: testInfo.outputPath("holder-timeline.png"), fullPage: true });

  await page.getByRole("button", { name: /table/i }).click();
  const table = page.getByTestId("timeline-table");
  await expect(table).toBeVisible();
  // The table lists the same events: a read and a write row at least, and as many rows as the API has events.
  // While the lab run's next case still runs, the page keeps polling: both sides are read again
  // until they agree (bounded).
  const saleId = /sales\/(\d+)\/timeline/.exec(page.url())?.[1];
  const apiEvents = async () => ((await (await page.request.get(`/api/admin/sales/${saleId}/timeline`)).json()) as { events: unknown[] }).events.length;
  await expect.poll(async () => (await table.locator("tbody tr").count()) - (await apiEvents()), { timeout: 60_000 }).toBe(0);
  expect(await table.locator("tbody tr").count()).toBeGreaterThan(1);
  await expect(table).toContainText("read");

  // The lab run goes on to its next case: back on the lab, Run comes back once the run has ended and let go of
  // the stack (the next test resets the sale; a lab run still going would reset it under that test).
  await page.goto("/admin/lab");
  await expect(page.getByTestId("scenario-7").getByRole("button", { name: "Run", exact: true })).toBeEnabled({ timeout: 90_000 });
});
