import { expect, test } from "@playwright/test";
import { disconnect } from "./support";

test.afterAll(disconnect);

test("the lab lists the ladder; scenario 1 shows the pitfall, scenario 12 the fix", async ({ page }) => {
  await page.goto("/admin/lab");
  await expect(page).toHaveURL(/\/admin\/login/);
  await page.getByLabel("Password").fill(process.env.ADMIN_PASSWORD ?? "");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { name: "Pitfall lab" })).toBeVisible();

  for (const title of ["1. No lock", "2. In-process mutex", "7. Work longer than the TTL, even with a token", "8. The holder pauses past its TTL", "12. No lock needed: one atomic decrement", "Reentrancy: a holder calls a locked step again"]) {
    await expect(page.getByRole("heading", { name: title })).toBeVisible();
  }
  await expect(page.getByTestId("faults-panel")).toContainText("No faults in force");

  // The page keeps each card's last outcome: first see this click start a new run.
  const first = page.getByTestId("scenario-1");
  await first.getByRole("button", { name: "Run" }).click();
  await expect(first.getByTestId("verdict")).toContainText(/waiting|running/);
  await expect(first.getByTestId("verdict")).toContainText("the pitfall appeared", { timeout: 60_000 });
  await expect(first.getByTestId("verdict")).toContainText("as predicted");
  // Once the lab has put the strategy back, the sale it ran is still shown under none: its 100 buyers' figures are none's.
  await expect(first.getByRole("button", { name: "Run", exact: true })).toBeEnabled({ timeout: 60_000 });
  const sale = (await (await page.request.get("/api/sale")).json()) as { strategy: string; strategyNow: string; doubleSold: number };
  expect(sale.strategy).toBe("none");
  expect(sale.strategyNow).not.toBe("none");
  expect(sale.doubleSold).toBeGreaterThan(0);
  await page.goto("/admin");
  await expect(page.getByTestId("sale-strategy")).toHaveText("none");
  await expect(page.getByTestId("sale-verdict")).toHaveText("FAIL");
  await page.goto("/admin/lab");

  const last = page.getByTestId("scenario-12");
  await expect(last.getByRole("button", { name: "Run" })).toBeEnabled({ timeout: 30_000 });
  await last.getByRole("button", { name: "Run" }).click();
  await expect(last.getByTestId("verdict")).toContainText(/waiting|running/);
  await expect(last.getByTestId("verdict")).toContainText("the fix held", { timeout: 60_000 });
  await expect(last.getByTestId("verdict")).toContainText("as predicted");
  // The run still resets the stack after its last verdict: Run comes back once it has let go of it.
  await expect(last.getByRole("button", { name: "Run", exact: true })).toBeEnabled({ timeout: 60_000 });
});
