/**
 * The local stack's configuration (scripts/stack/config.ts) and the variables it hands on
 * (scripts/stack/stack.ts: stackEnv, envFileText): defaults, explicit values, and a StackError
 * naming the variable for every bad one. No process is started.
 */
import { describe, expect, it } from "vitest";
import { envSchema } from "@/lib/env";
import { DEFAULTS, readConfig } from "../../scripts/stack/config";
import { StackError } from "../../scripts/stack/errors";
import { envFileText, stackEnv } from "../../scripts/stack/stack";

function configError(env: Record<string, string>): StackError {
  try {
    readConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(StackError);
    return err as StackError;
  }
  throw new Error(`readConfig accepted ${JSON.stringify(env)}`);
}

describe("readConfig defaults", () => {
  const cfg = readConfig({});

  it("starts five Redis nodes, Postgres on 55432, two apps, nginx on 3000, control on 3999", () => {
    expect(cfg.redis.map((n) => n.addr)).toEqual(["7001", "7002", "7003", "7004", "7005"].map((p) => `127.0.0.1:${p}`));
    expect(cfg.redis.map((n) => n.index)).toEqual([1, 2, 3, 4, 5]);
    expect(cfg.database).toEqual({
      url: "postgresql://locklab@127.0.0.1:55432/locklab",
      host: "127.0.0.1",
      port: 55432,
      user: "locklab",
      password: "",
      name: "locklab",
      shadowName: "locklab_shadow",
      shadowUrl: "postgresql://locklab@127.0.0.1:55432/locklab_shadow",
    });
    expect(cfg.apps).toEqual([
      { index: 1, port: 3001, instance: "app-1" },
      { index: 2, port: 3002, instance: "app-2" },
    ]);
    expect(cfg.publicPort).toBe(3000);
    expect(cfg.controlPort).toBe(3999);
    expect([cfg.redisExplicit, cfg.databaseExplicit, cfg.appsExplicit]).toEqual([false, false, false]);
  });

  it("starts a six-node Redis Cluster on 7201–7206 and PgBouncer on 55433 in front of the same database", () => {
    expect(cfg.redisCluster.map((n) => n.addr)).toEqual(["7201", "7202", "7203", "7204", "7205", "7206"].map((p) => `127.0.0.1:${p}`));
    expect(cfg.pgbouncer).toEqual({ index: 1, host: "127.0.0.1", port: 55433, addr: "127.0.0.1:55433", url: "postgresql://locklab@127.0.0.1:55433/locklab", user: "locklab", name: "locklab" });
  });

  it("takes the addresses' defaults from the app's schema, so both look in the same place", () => {
    expect(DEFAULTS.REDIS_NODES).toBe(envSchema.shape.REDIS_NODES.parse(undefined).join(","));
    expect(DEFAULTS.DATABASE_URL).toBe(envSchema.shape.DATABASE_URL.parse(undefined));
    expect(DEFAULTS.REDIS_CLUSTER_NODES).toBe(envSchema.shape.REDIS_CLUSTER_NODES.parse(undefined).join(","));
    expect(DEFAULTS.PGBOUNCER_URL).toBe(envSchema.shape.PGBOUNCER_URL.parse(undefined));
  });

  it("makes a new random control token unless STACK_CONTROL_TOKEN is set", () => {
    expect(cfg.token).toMatch(/^[0-9a-f]{32}$/);
    expect(readConfig({}).token).not.toBe(cfg.token);
    expect(readConfig({ STACK_CONTROL_TOKEN: "  secret  " }).token).toBe("secret");
  });

  it("treats a blank variable as unset", () => {
    const blank = readConfig({ REDIS_NODES: "  ", DATABASE_URL: "", APP_PORTS: " ", PUBLIC_PORT: "", STACK_CONTROL_PORT: " " });
    expect(blank.redis).toHaveLength(5);
    expect(blank.redisExplicit).toBe(false);
    expect(blank.databaseExplicit).toBe(false);
    expect(blank.apps).toHaveLength(2);
    expect(blank.publicPort).toBe(3000);
  });
});

describe("readConfig explicit values", () => {
  it("reads REDIS_NODES host:port pairs, trimming blanks and empty entries, IPv6 in brackets", () => {
    const cfg = readConfig({ REDIS_NODES: " 10.0.0.5:6379 ,, localhost:7002,[::1]:7003 " });
    expect(cfg.redis).toEqual([
      { index: 1, host: "10.0.0.5", port: 6379, addr: "10.0.0.5:6379" },
      { index: 2, host: "localhost", port: 7002, addr: "localhost:7002" },
      { index: 3, host: "::1", port: 7003, addr: "::1:7003" },
    ]);
    expect(cfg.redisExplicit).toBe(true);
  });

  it("reads DATABASE_URL's user, password, host, port and database, and names the shadow after it", () => {
    const cfg = readConfig({ DATABASE_URL: "postgres://app:p%40ss@db.internal:6543/sale%20db" });
    expect(cfg.database).toMatchObject({
      host: "db.internal",
      port: 6543,
      user: "app",
      password: "p@ss",
      name: "sale db",
      shadowName: "sale db_shadow",
      shadowUrl: "postgres://app:p%40ss@db.internal:6543/sale%20db_shadow",
    });
    expect(cfg.databaseExplicit).toBe(true);
  });

  it("fills in what DATABASE_URL leaves out: port 5432, user and database locklab", () => {
    expect(readConfig({ DATABASE_URL: "postgresql://[::1]" }).database).toMatchObject({
      host: "::1",
      port: 5432,
      user: "locklab",
      name: "locklab",
    });
  });

  it("takes the address phones are given from JOIN_URL, and none without it", () => {
    expect(readConfig({}).joinUrl).toBeNull();
    expect(readConfig({ JOIN_URL: "  " }).joinUrl).toBeNull();
    expect(readConfig({ JOIN_URL: " http://192.168.1.20:3000/ " }).joinUrl).toBe("http://192.168.1.20:3000");
    expect(readConfig({ JOIN_URL: "https://Lab.Example.org/store" }).joinUrl).toBe("https://lab.example.org/store");
  });

  it("numbers APP_PORTS' instances in order and reads the single ports", () => {
    const cfg = readConfig({ APP_PORTS: " 4001 ,4002,,4003", PUBLIC_PORT: " 8080 ", STACK_CONTROL_PORT: "9000" });
    expect(cfg.apps.map((a) => [a.index, a.port, a.instance])).toEqual([
      [1, 4001, "app-1"],
      [2, 4002, "app-2"],
      [3, 4003, "app-3"],
    ]);
    expect(cfg.appsExplicit).toBe(true);
    expect([cfg.publicPort, cfg.controlPort]).toEqual([8080, 9000]);
  });
});

describe("readConfig invalid values", () => {
  it.each([
    [{ REDIS_NODES: "redis-1" }, 'REDIS_NODES: "redis-1" is not host:port (e.g. 127.0.0.1:7001)'],
    [{ REDIS_NODES: "127.0.0.1:7001,127.0.0.1:70000" }, 'REDIS_NODES: "127.0.0.1:70000" is not host:port (e.g. 127.0.0.1:7001)'],
    [{ REDIS_NODES: "h:0" }, 'REDIS_NODES: "h:0" is not host:port (e.g. 127.0.0.1:7001)'],
    [{ REDIS_NODES: ", ," }, "REDIS_NODES: list at least one host:port"],
    [{ SENTINEL_REDIS: "127.0.0.1:7101" }, "SENTINEL_REDIS: list exactly 2 host:port addresses"],
    [{ SENTINEL_MASTER: "my master" }, 'SENTINEL_MASTER: "my master" may hold only letters, digits, _ . -'],
    [{ ZOOKEEPER_HOSTS: "zk-1" }, 'ZOOKEEPER_HOSTS: "zk-1" is not host:port (e.g. 127.0.0.1:7001)'],
    [{ ETCD_ENDPOINTS: ", " }, "ETCD_ENDPOINTS: list at least one host:port"],
    [{ DATABASE_URL: "not a url" }, 'DATABASE_URL: "not a url" is not a URL'],
    [{ DATABASE_URL: "mysql://root@127.0.0.1/sale" }, "DATABASE_URL: expected postgresql://user@host:port/db"],
    [{ REDIS_CLUSTER_NODES: "127.0.0.1:7201,127.0.0.1:7202,127.0.0.1:7203" }, "REDIS_CLUSTER_NODES: list exactly 6 host:port addresses"],
    [{ PGBOUNCER_URL: "pgbouncer" }, 'PGBOUNCER_URL: "pgbouncer" is not a URL'],
    [{ PGBOUNCER_URL: "postgresql://locklab@127.0.0.1:55432/locklab" }, "PGBOUNCER_URL: port 55432 is Postgres' own (DATABASE_URL); give PgBouncer a port of its own"],
    [{ APP_PORTS: "3001, web" }, 'APP_PORTS: " web" is not a TCP port'],
    [{ APP_PORTS: "3001.5" }, 'APP_PORTS: "3001.5" is not a TCP port'],
    [{ APP_PORTS: "," }, "APP_PORTS: list at least one port"],
    [{ PUBLIC_PORT: "0" }, 'PUBLIC_PORT: "0" is not a TCP port'],
    [{ STACK_CONTROL_PORT: "65536" }, 'STACK_CONTROL_PORT: "65536" is not a TCP port'],
    [{ JOIN_URL: "ftp://192.168.1.20" }, 'JOIN_URL: "ftp://192.168.1.20" must be an http:// or https:// address (e.g. http://192.168.1.20:3000, this laptop\'s address on the room\'s network and the port you published)'],
    [{ JOIN_URL: "192.168.1.20:3000" }, 'JOIN_URL: "192.168.1.20:3000" is not an address (e.g. http://192.168.1.20:3000, this laptop\'s address on the room\'s network and the port you published)'],
    [{ JOIN_URL: "http://admin:secret@192.168.1.20:3000" }, "JOIN_URL: leave the user and password out: everyone in the room sees this address"],
  ])("%j → %s", (env, message) => {
    expect(configError(env).message).toBe(message);
  });

  it("names the first bad variable, in the order REDIS_NODES, DATABASE_URL, APP_PORTS, PUBLIC_PORT", () => {
    const all = { REDIS_NODES: "x", DATABASE_URL: "y", APP_PORTS: "z", PUBLIC_PORT: "w" };
    expect(configError(all).message).toMatch(/^REDIS_NODES:/);
    expect(configError({ ...all, REDIS_NODES: "" }).message).toMatch(/^DATABASE_URL:/);
    expect(configError({ ...all, REDIS_NODES: "", DATABASE_URL: "" }).message).toMatch(/^APP_PORTS:/);
    expect(configError({ PUBLIC_PORT: "w", STACK_CONTROL_PORT: "v" }).message).toMatch(/^PUBLIC_PORT:/);
  });
});

describe("the stack's variables", () => {
  const cfg = readConfig({ APP_PORTS: "4001,4002", PUBLIC_PORT: "8080", STACK_CONTROL_TOKEN: "tok" });
  const env = stackEnv(cfg, "hunter22");

  it("describe the topology for the apps, bootstrap.mjs and .stack/stack.env", () => {
    expect(env).toEqual({
      ADMIN_PASSWORD: "hunter22",
      REDIS_NODES: DEFAULTS.REDIS_NODES,
      SENTINELS: "127.0.0.1:26381,127.0.0.1:26382,127.0.0.1:26383",
      SENTINEL_MASTER: "locklab",
      SENTINEL_REDIS: "127.0.0.1:7101,127.0.0.1:7102",
      REDIS_CLUSTER_NODES: "127.0.0.1:7201,127.0.0.1:7202,127.0.0.1:7203,127.0.0.1:7204,127.0.0.1:7205,127.0.0.1:7206",
      ZOOKEEPER_HOSTS: "127.0.0.1:12181,127.0.0.1:12182,127.0.0.1:12183",
      ETCD_ENDPOINTS: "127.0.0.1:12379,127.0.0.1:12389,127.0.0.1:12399",
      DATABASE_URL: "postgresql://locklab@127.0.0.1:55432/locklab",
      PGBOUNCER_URL: "postgresql://locklab@127.0.0.1:55433/locklab",
      APP_PORTS: "4001,4002",
      PUBLIC_PORT: "8080",
      PUBLIC_URL: "http://127.0.0.1:8080",
      STACK_CONTROL_PORT: "3999",
      STACK_CONTROL_URL: "http://127.0.0.1:3999",
      STACK_CONTROL_TOKEN: "tok",
    });
  });

  it("are written one NAME=value per line, newline-terminated", () => {
    const text = envFileText(env);
    expect(text.endsWith("\n")).toBe(true);
    const lines = text.trimEnd().split("\n");
    expect(lines[0]).toBe("ADMIN_PASSWORD=hunter22");
    expect(lines).toContain("PUBLIC_URL=http://127.0.0.1:8080");
    expect(lines).toHaveLength(16);
  });
});
