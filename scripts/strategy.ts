/**
 * Sets the shared lock config every app instance reads, from a terminal.
 *   npm run strategy -- redlock --ttl 2000 --wait 5000 --work 5
 *   npm run strategy -- --reset-sale 50      (new sale with stock 50)
 *   npm run strategy -- --show
 */
import { parseArgs } from "node:util";
import { closeDb } from "../lib/db";
import { STRATEGY_NAMES } from "../lib/locks/strategies";
import { closeRedis } from "../lib/redis";
import { getConfig, resetConfig, updateConfig } from "../lib/sale/config";
import { getSaleStats, resetSale } from "../lib/sale/sale";
import { lockConfigUpdateSchema } from "../lib/validations/config";

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      ttl: { type: "string" },
      wait: { type: "string" },
      work: { type: "string" },
      "reset-sale": { type: "string" },
      defaults: { type: "boolean" },
      show: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(`usage: npm run strategy -- [${STRATEGY_NAMES.join("|")}] [--ttl ms] [--wait ms] [--work ms] [--reset-sale stock] [--defaults] [--show]`);
    return;
  }
  if (values.defaults) await resetConfig();
  const num = (value: string | undefined) => (value === undefined ? undefined : Number(value));
  const update = lockConfigUpdateSchema.safeParse({
    strategy: positionals[0],
    lockTtlMs: num(values.ttl),
    waitTimeoutMs: num(values.wait),
    workMs: num(values.work),
  });
  if (!update.success) {
    for (const issue of update.error.issues) console.error(`${issue.path.join(".")}: ${issue.message}`);
    process.exitCode = 2;
    return;
  }
  const config = Object.values(update.data).some((v) => v !== undefined) ? await updateConfig(update.data) : await getConfig();
  if (values["reset-sale"] !== undefined) await resetSale({ initialStock: Number(values["reset-sale"]) });
  console.log(JSON.stringify({ config, sale: await getSaleStats() }, null, 2));
}

main()
  .catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  })
  .finally(() => Promise.allSettled([closeDb(), closeRedis()]));
