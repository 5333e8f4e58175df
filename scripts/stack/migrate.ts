// Migrations and the seed, once the stores are up (files owned by the app; skipped with a warning
// while they do not exist).

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { StackError } from "./errors";
import { ok, tail, warn } from "./log";
import { LOG_DIR, ROOT, mkdirp } from "./paths";
import type { ChildEnv } from "./processes";

function localBin(name: string): string {
  return path.join(ROOT, "node_modules", ".bin", name);
}

/** Runs one step to completion, its output in .stack/logs/<label>.log; throws a StackError with
 * the log's tail if it fails. */
function runStep(label: string, command: string, args: readonly string[], env: ChildEnv): void {
  const t0 = Date.now();
  const logFile = path.join(mkdirp(LOG_DIR), `${label.replace(/[^a-z0-9]+/gi, "-")}.log`);
  const result = spawnSync(command, args, { cwd: ROOT, env: env as NodeJS.ProcessEnv, encoding: "utf8" });
  fs.writeFileSync(logFile, `${result.stdout ?? ""}${result.stderr ?? ""}${result.error ? String(result.error) : ""}`);
  if (result.status !== 0) {
    throw new StackError(
      `${label} failed (${result.error?.message ?? `exit ${result.status}`}); log ${logFile}:\n${tail(logFile, 25)}`,
    );
  }
  ok(label, t0);
}

export function migrateAndSeed(env: ChildEnv): void {
  const schema = ["prisma/schema.prisma", "prisma/schema"].find((p) => fs.existsSync(path.join(ROOT, p)));
  if (!schema || !fs.existsSync(localBin("prisma"))) {
    warn("prisma schema not found yet: skipping migrations");
  } else if (!fs.existsSync(path.join(ROOT, "prisma", "migrations"))) {
    warn("prisma/migrations not found yet: skipping prisma migrate deploy");
  } else {
    runStep("prisma migrate deploy", localBin("prisma"), ["migrate", "deploy"], env);
  }
  if (!fs.existsSync(path.join(ROOT, "prisma", "seed.ts"))) {
    warn("prisma/seed.ts not found yet: skipping seed");
  } else {
    runStep("seed", localBin("tsx"), ["prisma/seed.ts"], env);
  }
}
