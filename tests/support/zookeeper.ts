/**
 * The ZooKeeper lock's contenders as the ensemble sees them, read with a client of the test's own:
 * each znode under the lock's path with the session that owns it and its age. Used to check no
 * znode is left behind, and to say in a failure what was blocking the lock.
 */
import zookeeper from "node-zookeeper-client";
import { getEnv } from "@/lib/env";

export interface Contender {
  readonly name: string;
  /** The owning session's id, hex (0 for a znode that is not ephemeral). */
  readonly owner: string;
  readonly ageMs: number;
}

export const lockPath = (resource: string) => `/locklab/locks/${encodeURIComponent(resource)}`;

export async function contenders(resource = "goods:001"): Promise<Contender[]> {
  const dir = lockPath(resource);
  const client = zookeeper.createClient(getEnv().ZOOKEEPER_HOSTS.join(","), { sessionTimeout: 4000, retries: 0 });
  const isNoNode = (error: unknown) => typeof (error as { getCode?: unknown }).getCode === "function"
    && (error as zookeeper.Exception).getCode() === zookeeper.Exception.NO_NODE;
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no ZooKeeper member answered")), 5000);
      client.once("connected", () => (clearTimeout(timer), resolve()));
      client.connect();
    });
    const children = await new Promise<string[]>((resolve, reject) =>
      client.getChildren(dir, (error, names) => (error ? (isNoNode(error) ? resolve([]) : reject(error)) : resolve(names))));
    const found: Contender[] = [];
    for (const name of children) {
      const stat = await new Promise<zookeeper.Stat | undefined>((resolve, reject) =>
        client.exists(`${dir}/${name}`, (error, s) => (error ? reject(error) : resolve(s))));
      if (!stat) continue;
      found.push({ name, owner: stat.ephemeralOwner.toString("hex"), ageMs: Date.now() - Number(stat.ctime.readBigInt64BE()) });
    }
    return found;
  } finally {
    client.close();
  }
}

/** One line per contender, for a failure message. */
export const describeContenders = (found: readonly Contender[]) =>
  found.length ? found.map((c) => `${c.name} (session ${c.owner}, ${c.ageMs} ms old)`).join("; ") : "no znode under the lock's path";
