/**
 * What may stay English on a page or in a message of another language, and a finder for anything
 * else: the check behind tests/unit/i18n-messages.test.ts (every message of ko, ja, zh-CN) and
 * the Playwright specs in e2e/i18n-*.spec.ts (every text a page shows).
 *
 * Allowed: names (the product's, the strategies', the servers' and tools', people's), units and
 * codes (all-capital words: TTL, PASS, FAIL, STUCK, ADMIN_PASSWORD…), commands a reader types
 * (npm run demo -- --lan), and the few terms an article keeps in English (Chinese: fencing token,
 * see messages/glossary.zh-CN.md). Anything else in Latin letters is English left untranslated.
 */
import { STRATEGY_NAMES } from "@/lib/locks/strategies";
import { LOCALE_NAMES } from "@/lib/i18n/locales";

/** Phrases taken out whole before words are looked at (longest first, so a name is not split). */
const ALLOWED_PHRASES: readonly string[] = [
  "Keyboard 001 — limited drop", // the product's name (a name: never translated)
  "Lock Lab",
  "Redis Cluster", // the product's name for Redis in cluster mode
  "lock-delay", // Chubby's term, kept in English by the Chinese article
  "stack runner", // the process that runs the stack (scripts/stack), by its name
  "npm run demo -- --lan",
  "npm run db:seed",
  "npm run demo",
  ...Object.values(LOCALE_NAMES), // the switcher lists each language by its own name
  ...[...STRATEGY_NAMES].sort((a, b) => b.length - a.length),
];

/**
 * What a lab card's own words (messages/lab/<locale>.json) may keep in English besides the above:
 * commands and settings a reader types as they are, function names, and the terms of the papers the
 * cards cite (Chubby's sequencer, Jepsen's grudge, etcd's and Raft's words, Kleppmann, Redisson).
 * Each language's glossary says which terms its articles keep in English.
 */
export const CARD_TERMS: readonly string[] = [
  "SET key value NX PX ttl", "stop-the-world", "min-replicas-to-write", "create revision", "Raft leader",
  "pg_advisory_xact_lock", "pg_advisory_unlock", "pg_advisory_lock", "setnx",
  "libfaketime", "znode", "Chubby", "sequencer", "keepalive", "grudge", "Kleppmann", "serializable", "linearizable",
  "Raft", "Redisson", "hash", "false", "failover", "lock-delay", "key",
];

/** Single words allowed anywhere (compared in lower case). */
const ALLOWED_WORDS: ReadonlySet<string> = new Set([
  // Servers, tools and formats, by name.
  "redis", "redlock", "postgres", "postgresql", "pgbouncer", "zookeeper", "sentinel", "etcd", "lua", "nginx", "goods",
  // What the network faults need, by name: the tool, its Debian package, the user it must run as.
  "nft", "nftables", "debian", "root",
  // Units.
  "ms",
  // The load models (closed / open), named as load tools name them.
  "closed", "open",
  // Terms the Chinese article keeps in English (glossary.zh-CN.md); Cookie as browsers call it.
  "fencing", "token", "cookie",
]);

/** Ids, URLs, codes and numbers shown as they are. */
const SHOWN_AS_IS: readonly RegExp[] = [
  /https?:\/\/\S+/g,
  /\b(?:app|redis|sentinel|sentinel-redis|redis-cluster|cluster|zookeeper|etcd|pgbouncer)-\d+(?:-peer)?\b/g,
  /\b(?:human|buyer)-[a-z0-9]*/g, // a buyer id, or its prefix
  /\bgoods:\d+\b/g,
  /\b[A-Z][A-Z0-9_]+\b/g, // acronyms, verdicts, env variables: TTL, PASS, ADMIN_PASSWORD
];

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * English words left in `text` (in order, each once): Latin-letter words of two letters or more
 * that are none of the allowed names, terms, codes or ids. `names`: more names this text may
 * show (the people of a test, say).
 */
export function englishWordsIn(text: string, names: readonly string[] = []): string[] {
  let rest = text;
  // A phrase ends where Latin letters do: Korean and Japanese write their particles right after it (znode가, ttl で).
  for (const phrase of [...names, ...ALLOWED_PHRASES].sort((a, b) => b.length - a.length)) {
    if (phrase) rest = rest.replace(new RegExp(`(?<![A-Za-z0-9])${escape(phrase)}(?![A-Za-z0-9])`, "g"), " ");
  }
  for (const pattern of SHOWN_AS_IS) rest = rest.replace(pattern, " ");
  const words = rest.match(/[A-Za-z][A-Za-z'’]*[A-Za-z]/g) ?? [];
  return [...new Set(words.filter((word) => !ALLOWED_WORDS.has(word.toLowerCase())))];
}

/**
 * A key next-intl could not find is shown as its path (`store.buttonBuyNow`): any
 * `namespace.key` of our messages in a page's text is one.
 */
export function missingKeysIn(text: string, namespaces: readonly string[]): string[] {
  const pattern = new RegExp(`\\b(?:${namespaces.map(escape).join("|")})\\.[A-Za-z_][\\w.-]*`, "g");
  return [...new Set(text.match(pattern) ?? [])];
}
