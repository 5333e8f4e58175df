import { defineConfig } from "@playwright/test";

/** End-to-end tests in Debian's Chromium, through nginx, against the stack `npm test` starts. */
export default defineConfig({
  testDir: "e2e",
  fullyParallel: false,
  workers: 1,
  timeout: 120_000,
  expect: { timeout: 15_000 },
  reporter: [["list"]],
  use: {
    baseURL: `http://127.0.0.1:${process.env.PUBLIC_PORT ?? 3000}`,
    headless: true,
    // English unless a spec asks for another language (e2e/i18n-*.spec.ts): the other specs select by English text.
    locale: "en-US",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
    trace: "off",
    screenshot: "only-on-failure",
  },
});
