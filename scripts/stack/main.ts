// The stack in the foreground, until Ctrl-C (what `node scripts/stack.mjs` was):
//
//   node --import tsx scripts/stack/main.ts
//
// scripts/bootstrap.mjs (npm run demo / stack / test) installs, builds and then starts the same stack.

import { say } from "./log";
import { StackError, startStack } from "./stack";

startStack({ quiet: false }).then(
  ({ env }) => {
    say(`\nstore  ${env.PUBLIC_URL}\ncontrol ${env.STACK_CONTROL_URL} (x-stack-token: ${env.STACK_CONTROL_TOKEN})\nCtrl-C stops everything.`);
  },
  (err: unknown) => {
    console.error(`✗ ${err instanceof StackError ? err.message : ((err as Error)?.stack ?? err)}`);
    process.exit(1);
  },
);
