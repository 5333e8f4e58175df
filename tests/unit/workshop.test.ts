import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parsePublicHost } from "../../scripts/stack/config";
import { nginxVars, renderTemplate, storeUrls } from "../../scripts/stack/services/nginx";
import { displayNameSchema, dropCreateSchema } from "@/lib/validations/workshop";
import { buyerFromCookie } from "@/lib/workshop/buyers";
import { DropClosedError, DropNotOpenError, assertDropOpen, dropOf } from "@/lib/sale/rules/drop";

describe("a drop's state", () => {
  const opensAt = 1_000_000;
  it("is scheduled before its opening time, open from it, closed once closed; a sale without a drop is open as always", () => {
    expect(dropOf({}, opensAt).state).toBe("none");
    expect(dropOf({ drop: { opensAt } }, opensAt - 1).state).toBe("scheduled");
    expect(dropOf({ drop: { opensAt } }, opensAt).state).toBe("open");
    expect(dropOf({ drop: { opensAt, closedAt: opensAt + 5 } }, opensAt + 10).state).toBe("closed");
  });

  it("refuses a purchase before it opens (saying when) and after it closes", () => {
    expect(() => assertDropOpen({}, 0)).not.toThrow();
    expect(() => assertDropOpen({ drop: { opensAt } }, opensAt)).not.toThrow();
    const early = (() => {
      try {
        assertDropOpen({ drop: { opensAt } }, opensAt - 2500);
      } catch (error) {
        return error;
      }
    })();
    expect(early).toBeInstanceOf(DropNotOpenError);
    expect((early as DropNotOpenError).details).toMatchObject({ opensInMs: 2500 });
    expect((early as DropNotOpenError).retryAfterS).toBe(3);
    expect(() => assertDropOpen({ drop: { opensAt, closedAt: opensAt } }, opensAt + 1)).toThrow(DropClosedError);
  });
});

describe("workshop input", () => {
  it("accepts display names of letters, digits, spaces and a little punctuation, trimmed", () => {
    for (const name of ["Ada", "Zoë K.", "李小龙", "o'neil", "R2-D2", "  Grace  ", "अनिल", "Jose\u0301", "ที่นี่", "Nguyễn", "Nguye\u0302\u0303n"]) expect(displayNameSchema.safeParse(name).success, name).toBe(true);
    expect(displayNameSchema.parse("Jose\u0301")).toBe("José");
    expect(displayNameSchema.parse("  Grace  ")).toBe("Grace");
  });

  it("refuses empty, long, markup, control characters and towers of accents", () => {
    for (const name of ["", "   ", "a".repeat(25), "<script>", "a\u0000b", "tab\there", "-lead", "x;DROP", "Z\u0301\u0302\u0303\u0304", "a\u0300\u0301\u0302\u0303", "\u0e17\u0e35\u0e48\u0e48"]) {
      expect(displayNameSchema.safeParse(name).success, JSON.stringify(name)).toBe(false);
    }
  });

  it("counts a name's length after normalising it, and refuses letters that draw nothing", () => {
    // 24 of U+0958 (क़) are 24 code units typed and 48 once normalised: too long for the projector.
    expect(displayNameSchema.safeParse("\u0958".repeat(24)).success).toBe(false);
    expect(displayNameSchema.safeParse("\u0958".repeat(12)).success).toBe(true);
    expect(displayNameSchema.safeParse("가".repeat(24)).success).toBe(true);
    // The Hangul fillers are letters to a regex and blank on a screen.
    for (const name of ["\u3164", "\u3164\u3164\u3164", "민\u3164준", "\uffa0", "\u115f\u1160"]) {
      expect(displayNameSchema.safeParse(name).success, JSON.stringify(name)).toBe(false);
    }
    expect(displayNameSchema.parse("민준")).toBe("민준");
  });

  it("takes only buyer ids this store hands out from the cookie", () => {
    expect(buyerFromCookie("human-abc123def456")).toBe("human-abc123def456");
    for (const value of [undefined, "", "human-", "buyer-1", "human-ABC123DEF456", "human-abc123def4567"]) expect(buyerFromCookie(value)).toBeUndefined();
  });

  it("bounds a drop's settings", () => {
    expect(dropCreateSchema.parse({ stock: 10 })).toEqual({ stock: 10, countdownS: 10, onePerBuyer: false });
    for (const body of [{ stock: 0 }, { stock: 10_001 }, { stock: 5, countdownS: 601 }, { stock: 5, strategy: "nope" }, { stock: 5, more: 1 }]) {
      expect(dropCreateSchema.safeParse(body).success, JSON.stringify(body)).toBe(false);
    }
  });
});

describe("what the stack exposes", () => {
  it("listens on loopback unless told otherwise, and takes only IPv4 addresses", () => {
    expect(parsePublicHost("127.0.0.1")).toBe("127.0.0.1");
    expect(parsePublicHost("localhost")).toBe("127.0.0.1");
    expect(parsePublicHost("0.0.0.0")).toBe("0.0.0.0");
    for (const bad of ["", "::", "256.1.1.1", "example.org", "1.2.3", "192.168.1.20"]) expect(() => parsePublicHost(bad)).toThrow(/PUBLIC_HOST/);
  });

  it("gives students every LAN address of the machine, loopback last", () => {
    const interfaces = {
      docker0: [{ address: "172.17.0.1", family: "IPv4", internal: false }],
      lo: [{ address: "127.0.0.1", family: "IPv4", internal: true }],
      eth0: [{ address: "192.168.1.20", family: "IPv4", internal: false }, { address: "fe80::1", family: "IPv6", internal: false }],
    } as unknown as NodeJS.Dict<import("node:os").NetworkInterfaceInfo[]>;
    expect(storeUrls("0.0.0.0", 3000, interfaces)).toEqual(["http://192.168.1.20:3000", "http://172.17.0.1:3000", "http://127.0.0.1:3000"]);
    expect(storeUrls("127.0.0.1", 3000, interfaces)).toEqual(["http://127.0.0.1:3000"]);
  });

  it("renders nginx so that /admin and /api/admin are refused from afar unless the instructor opts in", () => {
    const template = fs.readFileSync(path.join(__dirname, "../../nginx/nginx.conf.template"), "utf8");
    const cfg = { apps: [{ index: 1, port: 3001, instance: "app-1" }], publicPort: 3000 };
    const local = renderTemplate(template, nginxVars({ ...cfg, publicHost: "0.0.0.0", adminFromLan: false }, "/tmp/x"));
    expect(local).toContain("listen 0.0.0.0:3000;");
    expect(local).toMatch(/"~\^\\S\+ \/\(admin\|api\/admin\)\(\/\|\$\)" 1;/);
    const open = renderTemplate(template, nginxVars({ ...cfg, publicHost: "0.0.0.0", adminFromLan: true }, "/tmp/x"));
    expect(open).toMatch(/"~\^\\S\+ \/\(admin\|api\/admin\)\(\/\|\$\)" 0;/);
    expect(renderTemplate(template, nginxVars({ ...cfg, publicHost: "127.0.0.1", adminFromLan: false }, "/tmp/x"))).toContain("listen 127.0.0.1:3000;");
  });

  it("sees each client as its connection's address", () => {
    const template = fs.readFileSync(path.join(__dirname, "../../nginx/nginx.conf.template"), "utf8");
    const cfg = { apps: [{ index: 1, port: 3001, instance: "app-1" }], publicPort: 3000, publicHost: "0.0.0.0", adminFromLan: false };
    const local = renderTemplate(template, nginxVars(cfg, "/tmp/x"));
    expect(local).toMatch(/map \$remote_addr \$locklab_client \{\s+default \$remote_addr;/);
    // The limits, the admin's locality and the app's X-Real-IP all read that one variable.
    expect(local).toContain("map $locklab_client $locklab_limited {");
    expect(local).toContain('map "$locklab_client $uri" $locklab_admin_refused {');
    expect(local).toContain("proxy_set_header X-Real-IP $locklab_client;");
    expect(local).not.toContain("X-Real-IP $remote_addr");
  });
});
