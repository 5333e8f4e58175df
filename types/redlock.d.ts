/**
 * redlock@5.0.0-beta.2's own types, under its own name. Its `exports` map lists no types, so
 * "bundler" resolution finds none; they are re-exported here from its .d.ts, which tsconfig.json
 * maps as `redlock-5-types`, a name no code imports at run time. A `redlock` path straight to the
 * .d.ts (as the config had for the benchmark) is read by every resolver that reads tsconfig paths,
 * now that the app imports the library at run time: tsx and Next's webpack plugin skip a .d.ts
 * target, Turbopack was not checked. Declared this way, the run-time `redlock` is Node's to find.
 */
declare module "redlock" {
  export * from "redlock-5-types";
  export { default } from "redlock-5-types";
}
