import { describe, expect, it } from "vitest";
import { takeEventData } from "@/lib/workshop/sse-read";

describe("takeEventData", () => {
  it("gives each whole event's data, skips events without data, and keeps a partial event for later", () => {
    const { data, rest } = takeEventData('retry: 1000\n\ndata: {"stock":3}\n\n: keep-alive\n\nevent: unavailable\ndata: {"code":"unavailable"}\n\ndata: {"sto');
    expect(data).toEqual(['{"stock":3}', '{"code":"unavailable"}']);
    expect(rest).toBe('data: {"sto');
    expect(takeEventData(`${rest}ck":2}\n\n`)).toEqual({ data: ['{"stock":2}'], rest: "" });
  });
});
