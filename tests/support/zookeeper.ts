/**
 * The ZooKeeper lock's contenders as the ensemble sees them, read in a session of the test's own
 * (the app's client code, lib/lock-services.ts): each znode under the lock's path with the session
 * that owns it and its age. Used to check no znode is left behind, to say in a failure what was
 * blocking the lock, and to plant a contender's znode where a test needs one.
 */
import { randomUUID } from "node:crypto";
import zookeeper from "node-zookeeper-client";
import { openLockServices } from "@/lib/lock-services";
import { caughtUp, isCode, zookeeperLockPath } from "@/lib/locks/zookeeper-lock";

export interface Contender {
  readonly name: string;
  /** The owning session's id, hex (0 for a znode that is not ephemeral). */
  readonly owner: string;
  readonly ageMs: number;
}

/** One call of node-zookeeper-client as a promise. */
export const zkCall = <T>(call: (cb: (error: unknown, result: T) => void) => void) =>
  new Promise<T>((resolve, reject) => call((error, result) => (error ? reject(error) : resolve(result))));

/** The children of `dir` as the ensemble has them now, read in `client`'s session (see caughtUp). */
export async function childrenNow(client: zookeeper.Client, dir: string): Promise<string[]> {
  await caughtUp(client, dir);
  return zkCall<string[]>((cb) => client.getChildren(dir, cb));
}

export async function contenders(resource = "goods:001"): Promise<Contender[]> {
  const dir = zookeeperLockPath(resource);
  const services = openLockServices("test-contenders");
  try {
    const client = await services.zookeeper(4000);
    const children = await childrenNow(client, dir).catch((error: unknown) => {
      if (isCode(error, zookeeper.Exception.NO_NODE)) return [];
      throw error;
    });
    const found: Contender[] = [];
    for (const name of children) {
      const stat = await zkCall<zookeeper.Stat | undefined>((cb) => client.exists(`${dir}/${name}`, cb));
      if (stat) found.push({ name, owner: stat.ephemeralOwner.toString("hex"), ageMs: Date.now() - Number(stat.ctime.readBigInt64BE()) });
    }
    return found;
  } finally {
    await services.close();
  }
}

/** One line per contender, for a failure message. */
export const describeContenders = (found: readonly Contender[]) =>
  found.length ? found.map((c) => `${c.name} (session ${c.owner}, ${c.ageMs} ms old)`).join("; ") : "no znode under the lock's path";

/** A contender's znode, named as the lock names its own, created in `client`'s session: its name. */
export async function plantContender(client: zookeeper.Client, resource: string): Promise<string> {
  const dir = zookeeperLockPath(resource);
  await zkCall<string>((cb) => client.mkdirp(dir, cb));
  const path = await zkCall<string>((cb) =>
    client.create(`${dir}/_c_${randomUUID().replaceAll("-", "")}-lock-`, Buffer.alloc(0), zookeeper.CreateMode.EPHEMERAL_SEQUENTIAL, cb));
  return path.slice(dir.length + 1);
}
