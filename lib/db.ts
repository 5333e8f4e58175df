import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/prisma/client";
import { pgConnectionConfig } from "./db-config";

/** The one Prisma client of this process, over the pg driver adapter (no native engine). */
const globalForDb = globalThis as unknown as { lockLabDb?: PrismaClient };

export function getDb(): PrismaClient {
  globalForDb.lockLabDb ??= new PrismaClient({ adapter: new PrismaPg(pgConnectionConfig()) });
  return globalForDb.lockLabDb;
}

export async function closeDb(): Promise<void> {
  const db = globalForDb.lockLabDb;
  globalForDb.lockLabDb = undefined;
  await db?.$disconnect();
}
