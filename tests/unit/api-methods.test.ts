/**
 * Every API route answers every method with JSON. A route file that does not export a method gets
 * Next's bare 405 with an empty body and no `code`, so each app/api/**\/route.ts exports GET, POST,
 * PUT, PATCH and DELETE: the real handler, or methodNotAllowed("…") naming exactly the methods the
 * same file really serves, in the order GET, POST, PUT, PATCH, DELETE (its Allow header). A Pages
 * Router route (pages/api/, the hall's hot routes) is one pagesApiRoute, which answers every method
 * it does not serve with the same JSON 405, and reads its own body.
 * Read from the files' text: nothing is imported, so no store or env is touched.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
const ROOT = path.resolve(__dirname, "../..");
const API_DIR = path.join(ROOT, "app/api");
const PAGES_API_DIR = path.join(ROOT, "pages/api");

function routeFiles(dir: string, isRoute: (name: string) => boolean = (name) => name === "route.ts"): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return routeFiles(full, isRoute);
    return entry.isFile() && isRoute(entry.name) ? [full] : [];
  });
}

type Export = "handler" | "methodNotAllowed";

/** How the file exports `method`: a real handler, a methodNotAllowed refusal, or not at all. */
function exportOf(source: string, method: string): Export | undefined {
  if (new RegExp(`^export\\s+(async\\s+)?function\\s+${method}\\b`, "m").test(source)) return "handler";
  const value = new RegExp(`^export\\s+const\\s+${method}\\b[^=]*=\\s*(\\S+)`, "m").exec(source)?.[1];
  if (value === undefined) return undefined;
  return value.startsWith("methodNotAllowed(") ? "methodNotAllowed" : "handler";
}

const files = routeFiles(API_DIR)
  .map((file) => path.relative(ROOT, file))
  .sort();
const pagesFiles = routeFiles(PAGES_API_DIR, (name) => /\.tsx?$/.test(name))
  .map((file) => path.relative(ROOT, file))
  .sort();

describe("API routes answer every method with JSON", () => {
  it("finds the route files", () => {
    expect(files).toContain(path.join("app", "api", "stock", "route.ts"));
    expect(files.length).toBeGreaterThan(10);
    expect(pagesFiles).toEqual([path.join("pages", "api", "buy.ts"), path.join("pages", "api", "live.ts")]);
  });

  it.each(pagesFiles)("%s is one pagesApiRoute that reads its own body", (file) => {
    const source = fs.readFileSync(path.join(ROOT, file), "utf8");
    expect(source).toMatch(/^export default pagesApiRoute\(\{/m);
    // Next's body parser would answer a bad body with its own plain-text 400, not our JSON.
    expect(source).toMatch(/^export const config = \{ api: \{ bodyParser: false, responseLimit: false \} \};$/m);
    expect(source).not.toMatch(/^export (async )?function |^export const (GET|POST|PUT|PATCH|DELETE)\b/m);
  });

  it.each(files)("%s exports GET, POST, PUT, PATCH and DELETE, and its Allow lists are exact", (file) => {
    const source = fs.readFileSync(path.join(ROOT, file), "utf8");
    const problems: string[] = [];
    const exported = new Map(METHODS.map((method) => [method, exportOf(source, method)]));
    for (const [method, how] of exported) {
      if (!how) problems.push(`${file}: ${method} is not exported (Next would answer a bare 405 with no body); export the handler or methodNotAllowed(…)`);
    }
    const served = METHODS.filter((method) => exported.get(method) === "handler");
    for (const [, argument = ""] of source.matchAll(/methodNotAllowed\(([^)]*)\)/g)) {
      const literal = /^\s*"([^"]*)"\s*$/.exec(argument)?.[1];
      if (literal === undefined) {
        problems.push(`${file}: methodNotAllowed(${argument}) must take a string literal of the methods the route serves`);
        continue;
      }
      const allowed = literal.split(",").map((name) => name.trim());
      for (const name of allowed) {
        if (exported.get(name as (typeof METHODS)[number]) !== "handler") {
          problems.push(`${file}: methodNotAllowed("${literal}") names ${name}, which this file does not export as a real handler`);
        }
      }
      if (allowed.join(", ") !== served.join(", ")) {
        problems.push(`${file}: methodNotAllowed("${literal}") should be methodNotAllowed("${served.join(", ")}"): the methods this file really serves, in order`);
      }
    }
    expect(problems, problems.join("\n")).toEqual([]);
  });
});
