// A three-member ZooKeeper ensemble (Debian's zookeeper, run straight from its jar with a small
// JVM heap that suits a 2-core machine) for the `zookeeper` strategy. tickTime is 200 ms, so a
// client may ask for sessions of 400 ms to 4 s (2 to 20 ticks): short enough for the lab's
// "a session expires while the holder is paused" case. Quorum ports: 12888+n and 13888+n.

import fs from "node:fs";
import path from "node:path";
import type { MemberConfig } from "../config";
import { clusterService, tcpExchange } from "../cluster";

const ZOOKEEPER_JAR = "/usr/share/java/zookeeper.jar";
export const ZOOKEEPER_TICK_MS = 200;
export const quorumPort = (m: MemberConfig) => 12887 + m.index;
export const electionPort = (m: MemberConfig) => 13887 + m.index;

export function zooCfg(m: MemberConfig, dir: string, members: readonly MemberConfig[]): string {
  return [
    `tickTime=${ZOOKEEPER_TICK_MS}`,
    "initLimit=50",
    "syncLimit=10",
    `dataDir=${path.join(dir, "data")}`,
    `clientPort=${m.port}`,
    `clientPortAddress=${m.host}`,
    "admin.enableServer=false",
    "4lw.commands.whitelist=ruok,srvr",
    "maxClientCnxns=200",
    ...members.map((p) => `server.${p.index}=${p.host}:${quorumPort(p)}:${electionPort(p)}`),
    "",
  ].join("\n");
}

export const zookeeper = clusterService({
  name: "zookeeper",
  portVar: "ZOOKEEPER_HOSTS",
  what: "zookeeper member",
  marker: "QuorumPeerMain",
  members: ({ cfg }) => cfg.zookeeper,
  ports: (m) => [m.port, quorumPort(m), electionPort(m)],
  command(m, dir, members) {
    fs.mkdirSync(path.join(dir, "data"), { recursive: true });
    fs.writeFileSync(path.join(dir, "data", "myid"), `${m.index}\n`);
    fs.writeFileSync(path.join(dir, "zoo.cfg"), zooCfg(m, dir, members));
    return {
      command: "java",
      args: [
        "-Xms24m", "-Xmx96m", "-Xss512k", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
        "-Dzookeeper.jmx.log4j.disable=true",
        "-cp", ZOOKEEPER_JAR,
        "org.apache.zookeeper.server.quorum.QuorumPeerMain",
        path.join(dir, "zoo.cfg"),
      ],
    };
  },
  answers: async (m) => (await tcpExchange(m.host, m.port, "ruok", 500)) === "imok",
  async serves(members) {
    const modes = await Promise.all(members.map((m) => tcpExchange(m.host, m.port, "srvr", 500)));
    return modes.some((text) => /Mode: (leader|standalone)/.test(text));
  },
  readyTimeoutMs: 30_000,
});
