import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(__dirname) } },
  test: {
    // Integration and lab files share one real stack: run every file alone, project after project.
    fileParallelism: false,
    maxWorkers: 1,
    projects: [
      {
        extends: true,
        // The code under test logs what it withholds from its answers; the tests read answers, not logs.
        test: { name: "unit", include: ["tests/unit/**/*.test.ts"], env: { LOG_LEVEL: "silent" } },
      },
      {
        extends: true,
        test: {
          name: "network",
          include: ["tests/network/**/*.test.ts"],
          // No stack: standalone redis-servers on 17xxx ports, client processes with gids of their
          // own and an nft table of the test's own. Cuts and clocks are timing: one file at a time.
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: "servers",
          include: ["tests/servers/**/*.test.ts"],
          // No stack: each file starts servers of its own (a Redis Cluster, a Postgres, a PgBouncer)
          // on free 17xxx ports and stops them. One file at a time: they are heavy on a small machine.
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["tests/integration/**/*.test.ts"],
          // Every integration file drives the one shared stack (started by `npm test`): one at a time.
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 120_000,
          globalSetup: ["tests/support/require-stack.ts"],
        },
      },
      {
        extends: true,
        test: {
          name: "lab",
          include: ["tests/lab/**/*.test.ts"],
          // Scenarios stop Redis nodes and kill app instances: never beside another test file.
          fileParallelism: false,
          testTimeout: 600_000,
          hookTimeout: 120_000,
          globalSetup: ["tests/support/require-stack.ts"],
        },
      },
      {
        extends: true,
        test: {
          name: "conformance",
          include: ["tests/conformance/**/*.test.ts"],
          // Every lock through the lab's faults (lib/lab/conformance.ts): the stack to itself, as the lab.
          fileParallelism: false,
          testTimeout: 3_600_000,
          hookTimeout: 120_000,
          globalSetup: ["tests/support/require-stack.ts"],
        },
      },
      {
        extends: true,
        test: {
          name: "chaos",
          include: ["tests/chaos/**/*.test.ts"],
          // Random faults stop servers and kill instances: never beside another test file.
          fileParallelism: false,
          testTimeout: 3_600_000,
          hookTimeout: 120_000,
          globalSetup: ["tests/support/require-stack.ts"],
        },
      },
    ],
  },
});
