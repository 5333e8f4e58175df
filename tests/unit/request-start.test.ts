import { describe, expect, it } from "vitest";
import { queuedMsOf } from "@/lib/http/request-start";

const NOW = 1_795_000_000_000;
const withStamp = (value?: string) => new Request("http://127.0.0.1/api/buy", { method: "POST", headers: value === undefined ? {} : { "x-request-start": value } });

describe("how long a request waited before its handler (X-Request-Start from nginx)", () => {
  it("reads nginx's $msec stamp against the handler's clock", () => {
    expect(queuedMsOf(withStamp("t=1795000000.000"), NOW)).toBe(0);
    expect(queuedMsOf(withStamp("t=1794999994.750"), NOW)).toBe(5250);
    expect(queuedMsOf(withStamp("t=1794999999.5"), NOW)).toBe(500);
    expect(queuedMsOf(withStamp("t=1794999999"), NOW)).toBe(1000);
  });

  it("counts nothing without a stamp, with one it cannot parse, or with one that cannot be this request's", () => {
    expect(queuedMsOf(withStamp(), NOW)).toBe(0);
    for (const bad of ["", "1794999994.750", "t=", "t=abc", "t=1794999994.7501", "t=-1794999994", "t=1e9"]) {
      expect(queuedMsOf(withStamp(bad), NOW), bad).toBe(0);
    }
    expect(queuedMsOf(withStamp("t=1795000001.000"), NOW), "a second in the future").toBe(0);
    expect(queuedMsOf(withStamp("t=1795000000.030"), NOW), "jitter").toBe(0);
    expect(queuedMsOf(withStamp("t=1794999900.000"), NOW), "100 s old").toBe(0);
  });
});
