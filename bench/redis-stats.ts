import { getRedisNodes } from "../lib/redis";

/**
 * Commands executed by all Redis nodes, from `INFO commandstats` (`calls` summed over every
 * command). Redis counts the commands a Lua script runs as well as the EVALSHA itself, so this is
 * the work the nodes did, not the round trips clients made. INFO calls are left out.
 */
export async function countRedisCommands(): Promise<number> {
  const sections = await Promise.all(getRedisNodes().map((node) => node.info("commandstats")));
  let total = 0;
  for (const section of sections) {
    for (const match of section.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
      if (match[1] !== "info") total += Number(match[2]);
    }
  }
  return total;
}
