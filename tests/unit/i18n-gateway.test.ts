import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { GATEWAY_CODES, isGatewayCode } from "@/lib/i18n/gateway";
import { LOCALES } from "@/lib/i18n/locales";
import { MESSAGES } from "@/lib/i18n/messages";

const nginx = fs.readFileSync(path.join(__dirname, "../../nginx/nginx.conf.template"), "utf8");
const nginxCodes = new Set([...nginx.matchAll(/"code":"([a-z_]+)"/g)].map((match) => match[1]!));

/** What nginx says by itself to a phone (429, 502, 503, 504…) reaches the phone in the page's language. */
describe("nginx's own errors on a phone", () => {
  it("are codes nginx really answers with", () => {
    for (const code of GATEWAY_CODES) expect(nginxCodes, code).toContain(code);
    for (const status of ["429", "502", "503", "504"]) expect(nginx).toMatch(new RegExp(`error_page ${status} = @`));
  });

  it.each(LOCALES)("each has its message in %s", (locale) => {
    const gateway = MESSAGES[locale].common.gateway as Record<string, string>;
    for (const code of GATEWAY_CODES) expect(gateway[code]?.trim(), `${locale}: ${code}`).toBeTruthy();
  });

  it("only nginx's codes are taken from the messages; the app's own come translated", () => {
    expect(isGatewayCode("too_many_requests")).toBe(true);
    expect(isGatewayCode("rate_limited")).toBe(false);
    expect(isGatewayCode(undefined)).toBe(false);
  });
});

/** The admin's pages meet nginx's own errors too (its sign-in limit, no instance answering). */
describe("nginx's own errors on the admin's pages", () => {
  const files = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const full = path.join(dir, entry.name);
      return entry.isDirectory() ? files(full) : entry.name.endsWith(".tsx") ? [full] : [];
    });

  it("are said through useErrorText, never as the answer's English message", () => {
    const shown = files(path.join(__dirname, "../../app/admin")).filter((file) => /\.message \?\?/.test(fs.readFileSync(file, "utf8")));
    expect(shown.map((file) => path.relative(path.join(__dirname, "../.."), file))).toEqual([]);
  });
});
