import { expect, type Browser, type Page } from "@playwright/test";
import { closeDb } from "@/lib/db";
import { closeRedis } from "@/lib/redis";

/** Sets the shared config and starts a new sale on the real stack (shared with the Vitest suites). */
export { prepareSale } from "../tests/support/stack";

/** Closes the Redis and Postgres clients so the Playwright worker can exit. */
export async function disconnect(): Promise<void> {
  await Promise.allSettled([closeDb(), closeRedis()]);
}

/**
 * Closes every context of the shared browser: the phones and projectors a test opens with
 * `browser.newContext()` are not the test's own fixture, so their live streams would otherwise stay
 * open — and refetch at every sale reset — through every spec after it.
 */
export async function closeContexts({ browser }: { browser: Browser }): Promise<void> {
  await Promise.all(browser.contexts().map((context) => context.close().catch(() => {})));
}

/** The projector's drop form, unfolded (it folds away while a drop is on). */
export async function dropForm(projector: Page) {
  const toggle = projector.getByTestId("drop-form-toggle");
  if ((await toggle.getAttribute("aria-expanded")) !== "true") await toggle.click();
  const form = projector.locator("form.drop-form");
  await expect(form).toBeVisible();
  return form;
}
