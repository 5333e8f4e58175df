/**
 * Per-link partitions on real sockets, without the stack: two standalone redis-servers, two client
 * processes with group ids of their own (as the stack runs app-1 and app-2), and cuts applied
 * through the stack's own modules (network.ts renders them, nft-session.ts holds the table) in a
 * table of this test's own. What a user of the lab would see:
 *   (a) a one-way cut client → server: the client's calls time out while the server's pushes
 *       still reach it — until the server's first retransmission timeout, since the client's ACKs
 *       are cut too and TCP then stops sending new data; (b) the reverse cut drops only the
 *       replies: the request is served;
 *   (c) the connection stays open, no reset, each call waits out its own timeout;
 *   (d) heal: the same connection works again, and what was held in flight lands late;
 *   (e) other clients of the same server, and this client's other servers, see nothing;
 * and the table (every cut in it) dies with the process that owns it, even by SIGKILL.
 */
import { spawn, spawnSync } from "node:child_process";
import path from "node:path";
import readline from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cut, type LinkTopology, renderGrudge, renderTable } from "../../scripts/stack/network";
import { NftSession, deleteStaleTable } from "../../scripts/stack/nft-session";
import { ROOT } from "../../scripts/stack/paths";
import { isAlive } from "../../scripts/stack/processes";
import { sleep, waitFor } from "../support/wait";
import { type Probe, TEST_GIDS, type TestRedis, cleanup, freePorts, machineUnfit, startProbe, startRedis } from "./support/machine";

const unfit = machineUnfit();
/** Each client call's own timeout: what a cut makes it wait for. */
const CALL_TIMEOUT_MS = 800;
const TABLE = `locklab_dev_${process.pid}`;

const tableExists = (table: string) => spawnSync("nft", ["list", "table", "inet", table]).status === 0;

/**
 * Lets every connection's last ACK out (Linux delays one up to 40 ms): a cut made while a server
 * waits for an ACK would strand that data in retransmission, and the next check would test TCP's
 * backoff instead of the cut.
 */
const settle = () => sleep(200);

describe.skipIf(unfit !== null)(`cuts on real sockets${unfit ? ` (skipped: ${unfit})` : ""}`, () => {
  let redisA: TestRedis;
  let redisB: TestRedis;
  let clientA: Probe;
  let clientB: Probe;
  let session: NftSession;
  let topology: LinkTopology;
  const grudge = (cuts: Cut[]) => session.run(renderGrudge(TABLE, topology, cuts));
  const heal = () => grudge([]);
  const closes = (probe: Probe) => probe.events.filter((e) => e.event === "close");

  beforeAll(async () => {
    const [portA, portB] = await freePorts(2);
    [redisA, redisB] = await Promise.all([startRedis(portA!), startRedis(portB!)]);
    topology = {
      clients: [
        { name: "client-a", gid: TEST_GIDS.first },
        { name: "client-b", gid: TEST_GIDS.second },
      ],
      servers: [
        { name: "redis-a", ports: [redisA.port] },
        { name: "redis-b", ports: [redisB.port] },
      ],
    };
    deleteStaleTable(TABLE);
    // Before the clients: their connections are stamped on their first packet, as in the stack.
    session = await NftSession.open(TABLE, renderTable(TABLE, topology));
    [clientA, clientB] = await Promise.all([startProbe(TEST_GIDS.first), startProbe(TEST_GIDS.second)]);
    for (const [probe, conn, port] of [
      [clientA, "a", redisA.port],
      [clientA, "a-other", redisB.port],
      [clientA, "a-sub", redisA.port],
      [clientB, "b", redisA.port],
    ] as const) {
      expect((await probe.connect(conn, port, CALL_TIMEOUT_MS)).ok).toBe(true);
    }
    expect((await clientA.subscribe("a-sub", "news")).ok).toBe(true);
    await settle();
  }, 60_000);

  afterAll(async () => {
    await session?.close();
    await cleanup();
    expect(tableExists(TABLE)).toBe(false);
  });

  it("(a) client → server cut: the client's call times out while the server's pushes still reach it; (d) at heal the held write lands on the same connection", async () => {
    await grudge([{ client: "client-a", server: "redis-a", direction: "to-server" }]);

    const held = await clientA.call("a", ["SET", "lock", "client-a"]);
    expect(held.ok).toBe(false);
    expect(held.error).toMatch(/timed out/i);
    expect(held.ms).toBeGreaterThanOrEqual(CALL_TIMEOUT_MS - 50);

    // The server → client direction still flows: a message published now reaches client-a.
    const sentAt = Date.now();
    expect(await redisA.command(["PUBLISH", "news", "while-cut"])).toBe(1);
    const pushed = await clientA.waitEvent((e) => e.event === "message" && e.text === "while-cut", {
      what: "the published message to reach client-a through the one-way cut",
      timeoutMs: 2000,
    });
    expect(Number(pushed?.at) - sentAt).toBeLessThan(500);

    // Past the server's retransmission timeout (≥ 200 ms) for that unacknowledged push, TCP sends
    // nothing new on the connection: a one-way cut is a full one for the data after it.
    await sleep(600);
    expect(await redisA.command(["PUBLISH", "news", "after-rto"])).toBe(1);
    await sleep(600);
    expect(clientA.events.some((e) => e.text === "after-rto")).toBe(false);

    // (e) client-b reaches the same server; client-a reaches its other server.
    expect(await clientB.call("b", ["GET", "lock"])).toMatchObject({ ok: true, reply: null });
    expect(await clientA.call("a-other", ["PING"])).toMatchObject({ ok: true, reply: "PONG" });
    expect(await redisA.command(["GET", "lock"])).toBeNull(); // the SET is still held in flight

    await heal();
    const healedAt = Date.now();
    // (d) TCP retransmits what it held: the SET that "timed out" lands after the heal.
    await waitFor(() => redisA.command(["GET", "lock"]), { what: "client-a's held SET to land after the heal", timeoutMs: 5000, until: (v) => v === "client-a" });
    const landedAfterMs = Date.now() - healedAt;
    const again = await clientA.call("a", ["GET", "lock"]);
    expect(again).toMatchObject({ ok: true, reply: "client-a" });
    await clientA.waitEvent((e) => e.text === "after-rto", { what: "the stalled push to arrive after the heal", timeoutMs: 5000 });
    const stalledAfterMs = Date.now() - healedAt;
    expect(closes(clientA)).toEqual([]); // (c) never reset, never reconnected
    console.info(
      `to-server cut: call timed out after ${held.ms} ms; first push arrived in ${Number(pushed?.at) - sentAt} ms; ` +
        `held write landed ${landedAfterMs} ms and the stalled push ${stalledAfterMs} ms after heal`,
    );
    await settle();
  });

  it("(b) server → client cut: the request is served but its reply and the server's pushes are dropped; (d) at heal they arrive late", async () => {
    await grudge([{ client: "client-a", server: "redis-a", direction: "to-client" }]);

    const lost = await clientA.call("a", ["SET", "order", "placed"]);
    expect(lost).toMatchObject({ ok: false });
    expect(lost.ms).toBeGreaterThanOrEqual(CALL_TIMEOUT_MS - 50);
    expect(await redisA.command(["GET", "order"])).toBe("placed"); // the server did it; the client cannot know

    expect(await redisA.command(["PUBLISH", "news", "unheard"])).toBe(1);
    await sleep(CALL_TIMEOUT_MS); // the time a push would take many times over: it must not arrive
    expect(clientA.events.some((e) => e.text === "unheard")).toBe(false);
    expect(await clientB.call("b", ["GET", "order"])).toMatchObject({ ok: true, reply: "placed" }); // (e)

    await heal();
    const healedAt = Date.now();
    await clientA.waitEvent((e) => e.text === "unheard", { what: "the dropped push to be retransmitted after the heal", timeoutMs: 5000 });
    const lateMs = Date.now() - healedAt;
    expect(await clientA.call("a", ["PING"])).toMatchObject({ ok: true, reply: "PONG" });
    expect(closes(clientA)).toEqual([]);
    console.info(`to-client cut: call timed out after ${lost.ms} ms though served; dropped push arrived ${lateMs} ms after heal`);
    await settle();
  });

  it("(c) both ways: calls hang to their own timeout on an open connection, a new connection cannot be made, other links are untouched", async () => {
    await grudge([{ client: "client-a", server: "redis-a", direction: "both" }]);
    const hung = await clientA.call("a", ["PING"]);
    expect(hung).toMatchObject({ ok: false });
    expect(hung.ms).toBeGreaterThanOrEqual(CALL_TIMEOUT_MS - 50);
    expect(hung.ms).toBeLessThan(3 * CALL_TIMEOUT_MS); // its own timeout, timer lag aside: not TCP's minutes
    const fresh = await clientA.connect("a-new", redisA.port, CALL_TIMEOUT_MS);
    expect(fresh.ok).toBe(false);
    expect(await clientB.call("b", ["PING"])).toMatchObject({ ok: true, reply: "PONG" });
    expect(await clientA.call("a-other", ["PING"])).toMatchObject({ ok: true, reply: "PONG" });
    expect(closes(clientA).filter((e) => e.conn !== "a-new")).toEqual([]);

    await heal();
    const healedAt = Date.now();
    await waitFor(() => clientA.call("a", ["PING"]), { what: "client-a's old connection to answer again", timeoutMs: 5000, until: (r) => r.ok });
    console.info(`both-ways cut: call hung ${hung.ms} ms; the old connection answered again ${Date.now() - healedAt} ms after heal`);
    expect(closes(clientA).filter((e) => e.conn !== "a-new")).toEqual([]);
    await settle();
  });

  it("a new grudge replaces the one in force in one step", async () => {
    await grudge([{ client: "client-a", server: "redis-a", direction: "both" }]);
    await grudge([{ client: "client-b", server: "redis-a", direction: "both" }]);
    expect(await clientA.call("a", ["PING"])).toMatchObject({ ok: true, reply: "PONG" });
    expect((await clientB.call("b", ["PING"])).ok).toBe(false);
    await heal();
    await waitFor(() => clientB.call("b", ["PING"]), { what: "client-b to answer again", timeoutMs: 5000, until: (r) => r.ok });
    await settle();
  });

  it("no cut outlives its owner: SIGKILL the runner and the kernel drops the table, though its servers live on", async () => {
    const table = `${TABLE}_owner`;
    const runner = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "tests/network/support/owner-runner.mts"), table], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "inherit"],
    });
    const line = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("the runner did not start within 20 s")), 20_000);
      readline.createInterface({ input: runner.stdout! }).once("line", (l) => (clearTimeout(timer), resolve(l)));
    });
    const { nftPid, serverPid } = JSON.parse(line) as { nftPid: number; serverPid: number };
    try {
      expect(tableExists(table)).toBe(true);
      runner.kill("SIGKILL");
      await waitFor(() => tableExists(table), { what: `nft table ${table} to vanish with its runner`, timeoutMs: 3000, until: (exists) => !exists });
      expect(isAlive(nftPid)).toBe(false);
      expect(isAlive(serverPid)).toBe(true); // what kept the table alive was the runner's pipe, nothing else
    } finally {
      runner.kill("SIGKILL");
      process.kill(serverPid, "SIGKILL");
    }
  }, 30_000);
});
