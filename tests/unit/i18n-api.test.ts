import { describe, expect, it } from "vitest";
import { HttpError, errorResponse, publicRoute } from "@/lib/http/errors";
import { LOCALE_COOKIE, LOCALE_HEADER, localeOfRequest, negotiateLocale, type Locale } from "@/lib/i18n/locales";
import { SoldOutError } from "@/lib/purchase/errors";
import { RunConflictError } from "@/lib/runs/errors";
import { RateLimitedError } from "@/lib/sale/rules/buyer-limit";
import { DropNotOpenError } from "@/lib/sale/rules/drop";
import { dropCreateSchema, joinCreateSchema } from "@/lib/validations/workshop";

async function answer(error: unknown, locale: Locale) {
  const response = errorResponse(error, {}, locale);
  return { status: response.status, body: (await response.json()) as { code: string; message: string; fieldErrors?: Record<string, string[]> } };
}

/** The zod error a name the join form sent would raise. */
function badName(name: unknown): unknown {
  const parsed = joinCreateSchema.safeParse({ name });
  if (parsed.success) throw new Error(`${String(name)} is a good name`);
  return parsed.error;
}

describe("choosing a language", () => {
  it.each([
    ["ko-KR,ko;q=0.9,en-US;q=0.8,en;q=0.7", "ko"],
    ["en-US,en;q=0.9", "en"],
    ["ja", "ja"],
    ["fr-FR,fr;q=0.9,ja;q=0.4", "ja"],
    ["fr-FR, de;q=0.5", "en"],
    ["en;q=0.3, zh-TW;q=0.8", "zh-CN"],
    ["zh-Hans-CN", "zh-CN"],
    ["ko;q=0, en", "en"],
    ["*", "en"],
    ["", "en"],
  ] as const)("Accept-Language %j → %s", (header, locale) => {
    expect(negotiateLocale(header)).toBe(locale);
  });

  it("an API call's language: the page's own header, then the switcher's cookie, then Accept-Language", () => {
    const request = (headers: Record<string, string>) => new Request("http://store/api/buy", { headers });
    expect(localeOfRequest(request({ "accept-language": "ja-JP" }))).toBe("ja");
    expect(localeOfRequest(request({ "accept-language": "ja-JP", cookie: `other=1; ${LOCALE_COOKIE}=zh-CN` }))).toBe("zh-CN");
    expect(localeOfRequest(request({ "accept-language": "ja-JP", cookie: `${LOCALE_COOKIE}=zh-CN`, [LOCALE_HEADER]: "ko" }))).toBe("ko");
    // Values that are no language of ours are ignored.
    expect(localeOfRequest(request({ "accept-language": "ja-JP", cookie: `${LOCALE_COOKIE}=xx`, [LOCALE_HEADER]: "fr" }))).toBe("ja");
    expect(localeOfRequest(request({}))).toBe("en");
    // A cookie that is not valid percent-encoding names no language: the answer is still built.
    for (const broken of ["%", "%E0%A4%A", "%ff%"]) {
      expect(localeOfRequest(request({ "accept-language": "ko-KR", cookie: `${LOCALE_COOKIE}=${broken}` })), broken).toBe("ko");
    }
  });

  it("a drop may pin the room's language, one of ours", () => {
    expect(dropCreateSchema.parse({ stock: 10, locale: "ko" }).locale).toBe("ko");
    expect(dropCreateSchema.parse({ stock: 10 }).locale).toBeUndefined();
    expect(dropCreateSchema.safeParse({ stock: 10, locale: "fr" }).success).toBe(false);
  });
});

describe("API errors in the request's language", () => {
  it("keep their code and status; the message is translated by code", async () => {
    const sold = new SoldOutError("goods:001");
    const en = await answer(sold, "en");
    const ko = await answer(sold, "ko");
    expect(en).toEqual({ status: 409, body: { code: "sold_out", message: "goods:001 is sold out" } });
    expect(ko.status).toBe(409);
    expect(ko.body.code).toBe("sold_out");
    expect(ko.body.message).toBe("품절: 모두 팔렸습니다.");
  });

  it("fill the translation with the error's own values (its details, how long to wait)", async () => {
    const notOpen = await answer(new DropNotOpenError(10_000, 2_500), "ja");
    expect(notOpen.body).toMatchObject({ code: "drop_not_open", opensInMs: 7500 });
    expect(notOpen.body.message).toBe("ドロップは 8 秒後に始まります。カウントダウンが 0 になると購入ボタンが押せるようになります。");
    const limited = await answer(new RateLimitedError(5, 1000, 400), "zh-CN");
    expect(limited.body.message).toBe("购买尝试过于频繁：每 1000 ms 最多 5 次。本次没有购买；请在 1 秒后重试。");
  });

  it("say which join is missing: never joined, or a cookie this store does not know", async () => {
    const never = await answer(new HttpError(401, "join_first", "join first", { reason: "not_joined" }), "ko");
    const unknown = await answer(new HttpError(401, "join_first", "join again", { reason: "unknown_cookie" }), "ko");
    expect(never.body.message).toBe("먼저 워크숍에 참여하세요: 이름을 입력하세요.");
    expect(unknown.body.message).toContain("다시 참여하세요");
  });

  it("stay English where no translation exists, and in English exactly as the error said it", async () => {
    const conflict = new RunConflictError("run_in_progress", "a run is already in progress");
    expect((await answer(conflict, "ko")).body.message).toBe("a run is already in progress");
    expect((await answer(new SoldOutError("goods:001"), "en")).body.message).toBe("goods:001 is sold out");
  });

  it("explain a bad display name in the person's language, field by field", async () => {
    const empty = await answer(badName("   "), "zh-CN");
    expect(empty).toMatchObject({ status: 422, body: { code: "invalid_fields", message: "有字段缺失或无效。", fieldErrors: { name: ["请输入名字"] } } });
    expect((await answer(badName("<b>x</b>"), "ja")).body.fieldErrors?.name).toEqual([
      "使えるのは文字、数字、空白と . _ ' - だけで、文字か数字で始めてください",
    ]);
    expect((await answer(badName("a".repeat(30)), "ko")).body.fieldErrors?.name).toEqual(["최대 24자"]);
    // English is the schema's own wording.
    expect((await answer(badName(""), "en")).body.fieldErrors?.name).toEqual(["type a name"]);
  });

  it("a route answers in the language the request asks for", async () => {
    const route = publicRoute(async () => {
      throw new SoldOutError("goods:001");
    });
    const asked = async (headers: Record<string, string>) => (await (await route(new Request("http://store/api/buy", { headers }), {})).json()) as { code: string; message: string };
    expect(await asked({ "accept-language": "ja,en;q=0.5" })).toEqual({ code: "sold_out", message: "売り切れ: すべて売れました。" });
    expect(await asked({ "accept-language": "en-US" })).toEqual({ code: "sold_out", message: "goods:001 is sold out" });
    expect((await asked({ "accept-language": "en-US", cookie: `${LOCALE_COOKIE}=zh-CN` })).message).toBe("商品已经售完。");
  });
});
