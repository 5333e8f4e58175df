/**
 * What the public reads of a failure of our own servers: what happened, by its code, in the
 * reader's language — never the failure's own words (a host and port, `ECONNREFUSED`, a driver's
 * message, a stack). Those go to the log, and to a signed-in admin's answers.
 *
 * The failures here are real ones, not made up: this file's store points at 127.0.0.1:1, where
 * nothing listens, so every connection the store tries is refused by the kernel.
 */
import net from "node:net";
import pg from "pg";
import { afterAll, describe, expect, it, vi } from "vitest";

process.env.REDIS_NODES = "127.0.0.1:1";
process.env.DATABASE_URL = "postgresql://locklab@127.0.0.1:1/locklab";

import { GET as ready } from "@/app/api/ready/route";
import { closeDb } from "@/lib/db";
import { StoreUnavailableError } from "@/lib/errors";
import { errorResponse } from "@/lib/http/errors";
import { LOCALE_HEADER, LOCALES, type Locale } from "@/lib/i18n/locales";
import { classifyPgError } from "@/lib/locks/pg-connection";
import { getLog } from "@/lib/log";
import { readiness } from "@/lib/readiness";
import { getRedisNodes, getSubscriber } from "@/lib/redis";
import { storeCall } from "@/lib/store-call";
import { watchLive } from "@/lib/workshop/live";
import { INTERNALS } from "../support/internals";
import { englishWordsIn } from "../support/untranslated";
import { waitFor } from "../support/wait";


afterAll(async () => {
  // Clients that never connected: closeRedis' QUIT would wait for a connection that never comes.
  for (const client of [...getRedisNodes(), getSubscriber(0)]) client.disconnect();
  await closeDb();
});

/** The error a real refused connection raises, through the driver the store uses for it. */
async function refusedByPostgres(): Promise<unknown> {
  const client = new pg.Client({ host: "127.0.0.1", port: 1, user: "locklab", database: "locklab", connectionTimeoutMillis: 2000 });
  return client.connect().then(() => new Error("connected to port 1?"), (error: unknown) => error);
}

async function refusedBySocket(): Promise<Error> {
  return new Promise((resolve) => {
    const socket = net.connect(1, "127.0.0.1");
    socket.once("error", (error) => resolve(error));
  });
}

async function bodyOf(response: Response): Promise<{ text: string; body: { code: string; message: string } }> {
  const text = await response.text();
  return { text, body: JSON.parse(text) as { code: string; message: string } };
}

describe("a failure of our servers, answered", () => {
  it("the failures used here really carry the internals (the fault happened)", async () => {
    expect(String((await refusedByPostgres() as Error).message)).toMatch(/ECONNREFUSED 127\.0\.0\.1:1/);
    expect((await refusedBySocket()).message).toMatch(/ECONNREFUSED 127\.0\.0\.1:1/);
  });

  it("to the public: its code's message in the reader's language, never the host, the port or the driver's words", async () => {
    const refused = await refusedByPostgres();
    const failures: unknown[] = [
      await storeCall(() => Promise.reject(refused)).catch((error: unknown) => error),
      refused, // thrown bare by a path with no storeCall
      classifyPgError(refused, "goods:001", 1000), // a Postgres lock's LockUnavailableError
      new Error(`no route to 10.0.0.7:5432 at connect (/app/lib/db.ts:12:3)`), // anything unexpected: a 500
      new StoreUnavailableError("the order could not be recorded", { cause: await refusedBySocket(), reason: "order_pending", unit: 41 }),
    ];
    for (const failure of failures) {
      for (const locale of LOCALES) {
        const response = errorResponse(failure, {}, locale);
        const { text, body } = await bodyOf(response);
        expect(response.status, text).toBeGreaterThanOrEqual(500);
        expect(text, `${locale}: ${text}`).not.toMatch(INTERNALS);
        expect(Object.keys(body).slice(0, 2)).toEqual(["code", "message"]);
        if (locale !== "en") expect(englishWordsIn(body.message), `${locale}: ${body.message}`).toEqual([]);
      }
    }
  });

  it("says what became of the buyer's unit, by the error's reason", async () => {
    const said = async (error: StoreUnavailableError, locale: Locale) => (await bodyOf(errorResponse(error, {}, locale))).body;
    const pending = new StoreUnavailableError("the order could not be recorded; unit 41 stays reserved (reservation r-1)", { reason: "order_pending", unit: 41 });
    expect(await said(pending, "en")).toMatchObject({ code: "unavailable", reason: "order_pending", unit: 41, message: expect.stringMatching(/^Your order for unit 41 is not recorded yet/) });
    expect((await said(pending, "ko")).message).toMatch(/^41번 재고 단위의 주문을 아직 기록하지 못했습니다/);
    const putBack = new StoreUnavailableError("your purchase took too long to record: unit 7 was put back on the shelf; nothing was sold", { reason: "put_back", unit: 7 });
    expect((await said(putBack, "en")).message).toBe("Your purchase took too long to record: unit 7 was put back on the shelf, and nothing was sold. Try again.");
    expect((await said(putBack, "zh-CN")).message).toBe("购买记录耗时过长：第 7 件商品已放回库存，本次没有卖出。请重试。");
    expect(await said(new StoreUnavailableError("a backing server did not answer: connect ECONNREFUSED 127.0.0.1:55432"), "en")).toMatchObject({
      code: "unavailable", reason: "server", message: "A server the store needs is not answering; nothing was bought. Try again in a moment.",
    });
  });

  it("to the log: in its own words, causes and all", async () => {
    const warn = vi.spyOn(getLog(), "warn");
    try {
      const refused = await refusedByPostgres();
      errorResponse(new StoreUnavailableError("the order could not be recorded", { cause: refused, reason: "order_pending", unit: 3 }), {}, "ko");
      expect(warn).toHaveBeenCalledWith(expect.objectContaining({ code: "unavailable", detail: expect.stringMatching(/the order could not be recorded ← .*ECONNREFUSED 127\.0\.0\.1:1/) }), expect.any(String));
    } finally {
      warn.mockRestore();
    }
  });

  it("to a signed-in admin: in its own words, as the admin pages show it", async () => {
    const refused = await refusedByPostgres();
    const failure = await storeCall(() => Promise.reject(refused)).catch((error: unknown) => error);
    const { body } = await bodyOf(errorResponse(failure, {}, "en", { admin: true }));
    expect(body).toMatchObject({ code: "unavailable", message: expect.stringMatching(/ECONNREFUSED 127\.0\.0\.1:1/) });
  });
});

describe("GET /api/ready with its servers refusing", () => {
  it("names what does not answer, and not why: the why is the log's", async () => {
    const raw = await readiness();
    // The fault happened: the checks failed on refused connections, in the driver's words.
    expect(raw.ready).toBe(false);
    expect(JSON.stringify(raw.checks)).toMatch(INTERNALS);

    for (const locale of ["en", "ja"] as const) {
      const response = await ready(new Request("http://store/api/ready", { headers: { [LOCALE_HEADER]: locale } }));
      const { text, body } = await bodyOf(response);
      expect(response.status).toBe(503);
      expect(text).not.toMatch(INTERNALS);
      expect(body).toMatchObject({ code: "not_ready", checks: { "redis node 1": "unavailable", postgres: "unavailable" } });
      expect(Object.values((body as unknown as { checks: Record<string, string> }).checks).every((status) => status === "ok" || status === "unavailable")).toBe(true);
      if (locale === "ja") expect(body.message).toBe("このインスタンスは準備ができていません。ストアに必要なサーバーが応答しません。");
    }
  });
});

describe("the live stream when the figures cannot be built", () => {
  it("says so by its code in the listener's language, never in the failure's words", async () => {
    const events: string[] = [];
    const decoder = new TextDecoder();
    const unwatch = watchLive((bytes) => events.push(decoder.decode(bytes)), false, "ko");
    try {
      const event = await waitFor(() => events.find((text) => text.startsWith("event: unavailable")) ?? "", { what: "the stream's unavailable event", timeoutMs: 10_000, intervalMs: 50 });
      expect(event).not.toMatch(INTERNALS);
      const data = JSON.parse(event.split("\ndata: ")[1]!) as { code: string; reason: string; message: string };
      expect(data).toMatchObject({ code: "unavailable", reason: "live" });
      expect(data.message).toMatch(/^스토어에 필요한 서버가 응답하지 않아 실시간 수치를 갱신할 수 없습니다/);
    } finally {
      unwatch();
    }
  });
});
