/**
 * The floors of lib/, as rules the build checks (`npm run lint:deps`, part of
 * `npm run lint` and `npm test`). A module may import its own floor and the floors below it, never
 * one above; no import circle anywhere in lib/ or app/. From the top down:
 *
 *   8  app/, pages/               pages and route handlers (pages/api: the hall's hot routes, lib/http/pages-api.ts)
 *   7  composition and HTTP       lib/checkout.ts (the purchase with its listeners), lib/http/, lib/auth/
 *   6  orchestrators              lib/lab/, lib/runs/, lib/workshop/
 *   5  the purchase               lib/purchase/ (emits hooks; knows no feature)
 *   4  observers and support      lib/timeline/, lib/metrics.ts, lib/readiness.ts, lib/stack/
 *   3  the sale                   lib/sale/ (config, keys, accounting, liveness, rules)
 *   2  input shapes               lib/validations/, lib/store-call.ts
 *   1  the locks                  lib/locks/ (own keys and Lua)
 *   0  the ground                 clients, env, log, errors, the script helper, the live signal,
 *                                process-wide singletons, the secret comparison, the languages and their
 *                                messages (lib/i18n/)
 */
const FLOORS = [
  ["ground", "^lib/(env|errors|log|redis|redis-script|db|db-config|lock-services|live-signal|process-singleton|same-secret)\\.ts$|^lib/(generated|i18n)/"],
  ["locks", "^lib/locks/"],
  ["input shapes", "^lib/(validations/|store-call\\.ts$)"],
  ["the sale", "^lib/sale/"],
  ["observers and support", "^lib/(timeline/|stack/|metrics\\.ts$|readiness\\.ts$)"],
  ["the purchase", "^lib/purchase/"],
  ["orchestrators", "^lib/(lab|runs|workshop)/"],
  ["composition and HTTP", "^lib/(checkout\\.ts$|http/|auth/)"],
  ["app", "^(app|pages)/"],
];

/** One rule per floor: nothing on it imports a floor above it. */
const floorRules = FLOORS.slice(0, -1).map(([name, path], index) => ({
  name: `floor-${index}-${name.replace(/\W+/g, "-")}`,
  comment: `${name} (floor ${index}) imports nothing from a floor above it`,
  severity: "error",
  from: { path },
  to: { path: FLOORS.slice(index + 1).map(([, above]) => `(${above})`).join("|") },
}));

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "No import circle in lib/, app/ or pages/: each file reads without the ones that read it.",
      severity: "error",
      from: { path: "^(lib|app|pages)/" },
      to: { circular: true },
    },
    {
      name: "lib-has-a-floor",
      comment: "Every file of lib/ stands on one of the floors above: a new one is placed on purpose.",
      severity: "error",
      from: { path: "^lib/", pathNot: FLOORS.map(([, path]) => `(${path})`).join("|") },
      to: {},
    },
    ...floorRules,
    {
      name: "app-is-not-imported",
      comment: "lib/ never reaches up into app/ or pages/.",
      severity: "error",
      from: { path: "^lib/" },
      to: { path: "^(app|pages)/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^lib/generated/" },
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default", "types"] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
