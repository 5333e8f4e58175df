import { defineConfig } from "prisma/config";
import { PrismaPg } from "@prisma/adapter-pg";
import { pgConnectionConfig } from "./lib/db-config";
import { getEnv } from "./lib/env";

// schema.prisma's `url = env("DATABASE_URL")` must resolve even when only the default is in use,
// or the CLI cannot read the generator's engineType and tries to download a query engine.
process.env.DATABASE_URL ??= getEnv().DATABASE_URL;

// The CLI runs the JavaScript schema engine through the pg driver adapter, so `migrate` needs no
// downloaded binary (run it with PRISMA_CLI_QUERY_ENGINE_TYPE=client; the npm scripts do).
// The adapter gets host/port/user/database separately: given a connectionString it ignores the
// shadow database (see lib/db-config.ts).
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations", seed: "tsx prisma/seed.ts" },
  experimental: { adapter: true },
  engine: "js",
  // allowExitOnIdle: an idle pool must not keep the CLI alive after migrating.
  adapter: async () => readCatalogTypesAsText(new PrismaPg(pgConnectionConfig({ allowExitOnIdle: true }))),
});

const PG_NAME_OID = 19;
const PG_CHAR_OID = 18;
const PG_TEXT_OID = 25;

type PerformIO = (...args: unknown[]) => Promise<{ fields: { dataTypeID: number }[] }>;

/**
 * prisma/orm#27403: the adapter rejects Postgres' `name` and `"char"` columns, which the schema
 * engine reads from the catalog while migrating. Both arrive from pg as strings, so reporting
 * them as `text` is exact. Patched on the shared queryable prototype, in the CLI process only.
 */
async function readCatalogTypesAsText(factory: PrismaPg): Promise<PrismaPg> {
  const adapter = await factory.connect();
  const queryable = Object.getPrototypeOf(Object.getPrototypeOf(adapter)) as { performIO: PerformIO; patched?: true };
  await adapter.dispose();
  if (queryable.patched) return factory;
  const performIO = queryable.performIO;
  queryable.performIO = async function (this: unknown, ...args: unknown[]) {
    const result = await performIO.apply(this, args);
    for (const field of result.fields) {
      if (field.dataTypeID === PG_NAME_OID || field.dataTypeID === PG_CHAR_OID) field.dataTypeID = PG_TEXT_OID;
    }
    return result;
  };
  queryable.patched = true;
  return factory;
}
