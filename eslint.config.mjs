// @ts-check
/**
 * ESLint: the rules the type checker does not have (`npm run lint`, with the floors of
 * .dependency-cruiser.cjs). The recommended sets — JavaScript's, typescript-eslint's and Next's
 * core-web-vitals (React, react-hooks, jsx-a11y, import, Next's own) — over every source file.
 * typescript-eslint's type-aware set is left out: it more than doubled the run (42 s of CPU
 * against 18 s on a 2-core machine), and `npm test` runs this every time.
 */
import js from "@eslint/js";
import nextVitals from "eslint-config-next/core-web-vitals";
import { defineConfig, globalIgnores } from "eslint/config";
import globals from "globals";
import tseslint from "typescript-eslint";

// Stock k6 runs this one, not Node or a browser: plain ES2019 and k6's globals, checked as such.
const K6_SCRIPT = "load/flash-sale.js";

export default defineConfig([
  globalIgnores([
    "node_modules/",
    ".next/",
    ".stack/",
    "lib/generated/",
    "next-env.d.ts",
    "coverage/",
    "playwright-report/",
    "test-results/",
  ]),
  {
    files: ["**/*.{js,mjs,cjs,ts,mts,cts,tsx}"],
    ignores: [K6_SCRIPT],
    extends: [js.configs.recommended, tseslint.configs.recommended, nextVitals],
    rules: {
      // Destructuring a key away beside a rest is how a key is left out of a copy (lib/sale/sale.ts).
      "@typescript-eslint/no-unused-vars": ["error", { ignoreRestSiblings: true }],
    },
  },
  {
    // Next parses .mts/.cts with Babel, which misreads TypeScript (load/driver.d.mts).
    files: ["**/*.{mts,cts}"],
    languageOptions: { parser: tseslint.parser },
  },
  {
    // Next's Node globals skip .cjs; these are CommonJS for Node, where require() is the import.
    files: ["**/*.cjs"],
    languageOptions: { sourceType: "commonjs", globals: globals.node },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
  {
    files: [K6_SCRIPT],
    extends: [js.configs.recommended],
    languageOptions: {
      ecmaVersion: 2019,
      sourceType: "module",
      globals: { __ENV: "readonly", __VU: "readonly", __ITER: "readonly", console: "readonly" },
    },
    rules: {
      // A catch keeps its binding here: `catch {}` is ES2019 too, and not known to parse on old k6.
      "no-unused-vars": ["error", { caughtErrors: "none" }],
    },
  },
]);
