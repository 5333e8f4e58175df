/**
 * The local stack's small codecs: the RESP encoder and parser of its Redis client
 * (scripts/stack/resp.ts) and the nginx template renderer (scripts/stack/services/nginx.ts).
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readConfig } from "../../scripts/stack/config";
import { StackError } from "../../scripts/stack/errors";
import { LOG_DIR, ROOT } from "../../scripts/stack/paths";
import { encodeResp, parseResp } from "../../scripts/stack/resp";
import { nginxVars, renderTemplate } from "../../scripts/stack/services/nginx";

const buf = (s: string) => Buffer.from(s, "utf8");

describe("encodeResp", () => {
  it("sends a command as an array of bulk strings", () => {
    expect(encodeResp(["CONFIG", "GET", "dir"])).toBe("*3\r\n$6\r\nCONFIG\r\n$3\r\nGET\r\n$3\r\ndir\r\n");
  });

  it("counts bytes, not characters, and keeps empty arguments", () => {
    expect(encodeResp(["SET", "k", "€", ""])).toBe("*4\r\n$3\r\nSET\r\n$1\r\nk\r\n$3\r\n€\r\n$0\r\n\r\n");
  });
});

describe("parseResp", () => {
  it("reads simple strings, errors and integers", () => {
    expect(parseResp(buf("+PONG\r\n"))).toEqual(["PONG", 7]);
    const [err, next] = parseResp(buf("-ERR unknown command\r\n")) ?? [];
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe("ERR unknown command");
    expect(next).toBe(22);
    expect(parseResp(buf(":42\r\n"))).toEqual([42, 5]);
  });

  it("reads bulk strings by byte length, and the null bulk string", () => {
    expect(parseResp(buf("$3\r\n€\r\n"))).toEqual(["€", 9]);
    expect(parseResp(buf("$0\r\n\r\n"))).toEqual(["", 6]);
    expect(parseResp(buf("$-1\r\n"))).toEqual([null, 5]);
  });

  it("reads nested arrays, as CONFIG GET answers", () => {
    const reply = "*2\r\n$3\r\ndir\r\n$21\r\n/work/main/.stack/r-1\r\n";
    expect(parseResp(buf(reply))).toEqual([["dir", "/work/main/.stack/r-1"], reply.length]);
    expect(parseResp(buf("*2\r\n*1\r\n:1\r\n$-1\r\n"))).toEqual([[[1], null], 17]);
  });

  it("waits for more data while a reply is incomplete", () => {
    expect(parseResp(buf("+PON"))).toBeNull();
    expect(parseResp(buf("$5\r\nhel"))).toBeNull();
    expect(parseResp(buf("$5\r\nhello"))).toBeNull(); // the bulk string's own CRLF is missing
    expect(parseResp(buf("*2\r\n$3\r\ndir\r\n"))).toBeNull();
  });

  it("reads from an offset, so replies can be taken one after another", () => {
    const two = buf("+OK\r\n:7\r\n");
    const first = parseResp(two);
    expect(first).toEqual(["OK", 5]);
    expect(parseResp(two, first![1])).toEqual([7, 9]);
  });

  it("turns an unknown type into an error and consumes the buffer", () => {
    const [err, next] = parseResp(buf("?what\r\n")) ?? [];
    expect((err as Error).message).toBe("unexpected RESP type ?");
    expect(next).toBe(7);
  });
});

describe("renderTemplate", () => {
  it("substitutes ${UPPER_CASE} names and leaves nginx's own $variables alone", () => {
    const out = renderTemplate("listen ${NGINX_LISTEN};\nproxy_set_header Host $host;\nset $x ${lower};", {
      NGINX_LISTEN: "127.0.0.1:3000",
    });
    expect(out).toBe("listen 127.0.0.1:3000;\nproxy_set_header Host $host;\nset $x ${lower};");
  });

  it("leaves comment lines as they are, placeholders included", () => {
    expect(renderTemplate("  # uses ${MISSING}\npid ${P};", { P: "/x.pid" })).toBe("  # uses ${MISSING}\npid /x.pid;");
  });

  it("refuses a placeholder it has no value for, naming it", () => {
    expect(() => renderTemplate("pid ${NGINX_PID};", {})).toThrow(StackError);
    expect(() => renderTemplate("pid ${NGINX_PID};", {})).toThrow("nginx template: no value for ${NGINX_PID}");
  });

  it("renders the shared template with one upstream server per app port", () => {
    const cfg = readConfig({ APP_PORTS: "4001,4002,4003", PUBLIC_PORT: "8080" });
    const dir = path.join(ROOT, ".stack", "nginx");
    const vars = nginxVars(cfg, dir);
    expect(vars.NGINX_LISTEN).toBe("127.0.0.1:8080");
    expect(vars.NGINX_PID).toBe(path.join(dir, "nginx.pid"));
    expect(vars.NGINX_TEMP_DIR).toBe(path.join(dir, "temp"));
    expect(vars.NGINX_ACCESS_LOG).toBe(`${path.join(LOG_DIR, "nginx-access.log")} locklab buffer=64k flush=1s`);
    expect(vars.APP_UPSTREAMS).toBe(
      [4001, 4002, 4003].map((p) => `server 127.0.0.1:${p} max_fails=0;`).join("\n        "),
    );
    const conf = renderTemplate(fs.readFileSync(path.join(ROOT, "nginx", "nginx.conf.template"), "utf8"), vars);
    expect(conf).toContain("server 127.0.0.1:4003 max_fails=0;");
    expect(conf).toContain("127.0.0.1:8080");
    const uncommented = conf.split("\n").filter((l) => !l.trimStart().startsWith("#"));
    expect(uncommented.join("\n")).not.toMatch(/\$\{[A-Z]/);
  });
});
