import { expect, test } from "@playwright/test";
import { stackControl } from "../tests/support/stack";
import { disconnect, prepareSale } from "./support";

test.afterAll(disconnect);

test("a buyer buys, sees the order and the stock drop; at zero the page says sold out", async ({ page }) => {
  await prepareSale({ strategy: "token-lua", workMs: 0 }, 2);
  await page.goto("/");

  await expect(page.getByRole("heading", { level: 1 })).toContainText("Keyboard 001");
  await expect(page.getByText("goods:001").first()).toBeVisible();
  await expect(page.getByTestId("stock-count")).toHaveText("2");
  await expect(page.getByTestId("strategy")).toHaveText("token-lua");

  const buy = page.getByRole("button", { name: "Buy now" });
  await buy.click();
  await expect(page.getByTestId("outcome")).toContainText(/Bought! Order #\d+ — 1 left/);
  await expect(page.getByTestId("stock-count")).toHaveText("1");

  await buy.click();
  await expect(page.getByTestId("outcome")).toContainText(/Bought! Order #\d+ — 0 left/);
  await expect(page.getByTestId("stock")).toHaveText("Sold out");
  await expect(page.getByRole("button", { name: "Sold out" })).toBeDisabled();
});

test("the stock updates without reloading when someone else buys", async ({ page, request }) => {
  await prepareSale({ strategy: "token-lua", workMs: 0 }, 5);
  await page.goto("/");
  await expect(page.getByTestId("stock-count")).toHaveText("5");

  const response = await request.post("/api/buy", { data: { buyer: "someone-else" } });
  expect(response.status()).toBe(201);
  await expect(page.getByTestId("stock-count")).toHaveText("4");
});

test("a buyer who arrives after the last unit sees sold out and a disabled button", async ({ page }) => {
  await prepareSale({ strategy: "token-lua", workMs: 0 }, 0);
  await page.goto("/");
  await expect(page.getByTestId("stock")).toHaveText("Sold out");
  await expect(page.getByRole("button", { name: "Sold out" })).toBeDisabled();
});

test("with Postgres stopped the store says it cannot reach its servers, and comes back after", async ({ page }) => {
  await prepareSale({ strategy: "token-lua", workMs: 0 }, 5);
  await stackControl("/postgres/stop");
  try {
    await page.goto("/");
    await expect(page.getByTestId("store-error")).toContainText("The store cannot reach its servers");
  } finally {
    await stackControl("/postgres/start");
  }
  // The pool reconnects in the background: "Try again" gets there within a few clicks.
  await expect(async () => {
    await page.getByRole("button", { name: "Try again" }).click({ timeout: 1000 }).catch(() => {});
    await expect(page.getByRole("button", { name: "Buy now" })).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 20_000 });
});
