import { describe, expect, it } from "vitest";
import { keptError } from "@/lib/errors";
import { HttpError, errorResponse, humanMessage, publicRoute } from "@/lib/http/errors";
import { LOCALE_COOKIE, LOCALE_HEADER, localeOfRequest, negotiateLocale, type Locale } from "@/lib/i18n/locales";
import { SoldOutError } from "@/lib/purchase/errors";
import { LabResetError, LabWaitTimeoutError } from "@/lib/lab/errors";
import { faultActionSchema } from "@/lib/lab/fault-action";
import { RunConflictError } from "@/lib/runs/errors";
import { RateLimitedError } from "@/lib/sale/rules/buyer-limit";
import { DropNotOpenError } from "@/lib/sale/rules/drop";
import { claimDetails } from "@/lib/stack/claim";
import { StackControlError, StackControlRefusedError } from "@/lib/stack/control";
import { runCreateSchema } from "@/lib/validations/run";
import { dropCreateSchema, joinCreateSchema } from "@/lib/validations/workshop";
import { englishWordsIn } from "../support/untranslated";

async function answer(error: unknown, locale: Locale) {
  const response = errorResponse(error, {}, locale);
  return { status: response.status, body: (await response.json()) as { code: string; message: string; fieldErrors?: Record<string, string[]> } };
}

/** The zod error a body `schema` refuses raises. */
function refused(schema: { safeParse: (body: unknown) => { success: boolean; error?: unknown } }, body: unknown): unknown {
  const parsed = schema.safeParse(body);
  if (parsed.success) throw new Error(`${JSON.stringify(body)} is a good body`);
  return parsed.error;
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
    expect(ko.body.message).toBe("모두 팔려 품절되었습니다.");
  });

  it("fill the translation with the error's own values (its details, how long to wait)", async () => {
    const notOpen = await answer(new DropNotOpenError(10_000, 2_500), "ja");
    expect(notOpen.body).toMatchObject({ code: "drop_not_open", opensInMs: 7500 });
    expect(notOpen.body.message).toBe("セールは 8 秒後に始まります。カウントダウンが 0 になると購入ボタンが押せるようになります。");
    const limited = await answer(new RateLimitedError(5, 1000, 400), "zh-CN");
    expect(limited.body.message).toBe("购买尝试过于频繁：每 1000 ms 最多 5 次。本次没有购买；请在 1 秒后重试。");
  });

  it("say which join is missing: never joined, or a cookie this store does not know", async () => {
    const never = await answer(new HttpError(401, "join_first", "join first", { reason: "not_joined" }), "ko");
    const unknown = await answer(new HttpError(401, "join_first", "join again", { reason: "unknown_cookie" }), "ko");
    expect(never.body.message).toBe("먼저 워크숍에 참여하세요. 이름을 입력하세요.");
    expect(unknown.body.message).toContain("다시 참여하세요");
  });

  it("stay English where no translation exists, and in English exactly as the error said it", async () => {
    // A refusal the stack runner may add later passes its code through: no message of ours yet.
    const later = new StackControlRefusedError(409, "not_yet_translated", "redis 2 is busy moving its clock");
    expect((await answer(later, "ko")).body).toEqual({ code: "not_yet_translated", message: "redis 2 is busy moving its clock" });
    expect((await answer(new SoldOutError("goods:001"), "en")).body.message).toBe("goods:001 is sold out");
    const conflict = new RunConflictError("run_in_progress", "lab run 4 is using the stack; wait for it to finish", claimDetails({ kind: "lab", id: 4 }));
    expect((await answer(conflict, "en")).body.message).toBe("lab run 4 is using the stack; wait for it to finish");
  });

  it("name who holds the stack when a run is refused, from the error's details", async () => {
    const byLab = await answer(new RunConflictError("run_in_progress", "lab run 4 is using the stack", claimDetails({ kind: "lab", id: 4 })), "ko");
    expect(byLab).toEqual({
      status: 409,
      body: { code: "run_in_progress", message: "실습 실행 #4에서 스택을 사용하고 있습니다. 끝날 때까지 기다리세요.", claimKind: "lab", claimId: 4 },
    });
    const starting = await answer(new RunConflictError("run_in_progress", "another run is starting", claimDetails(undefined)), "ja");
    expect(starting.body.message).toBe("別の実行が始まるところです。終わるまでお待ちください。");
    const lab = await answer(new HttpError(409, "lab_run_in_progress", "load run 12 is using the stack", claimDetails({ kind: "run", id: 12 })), "zh-CN");
    expect(lab.body.message).toBe("第 12 次负载运行正在使用集群，请等它结束。");
    const changing = await answer(new RunConflictError("run_in_progress", "the sale is being switched", claimDetails({ kind: "change", id: 81 })), "zh-CN");
    expect(changing.body).toMatchObject({ claimKind: "change", message: "正在切换或重置抢购，或开启发售，请稍后再试。" });
    const finished = await answer(new RunConflictError("run_finished", "run 7 is already failed", { runId: 7, status: "failed" }), "ko");
    expect(finished.body.message).toBe("실행 #7은(는) 이미 끝났습니다(실패). 더 이상 보고를 받지 않습니다.");
  });

  it("say a lab case's error, kept in its record, in the reader's language when it has a code", () => {
    const say = (error: unknown, locale: Locale) => {
      const kept = keptError(error);
      return kept.errorCode ? humanMessage(kept.errorCode, kept.error, { ...kept.errorValues }, locale) : kept.error;
    };
    expect(say(new LabWaitTimeoutError("second-holder-inside", 8000), "ko")).toBe("이 케이스는 8초 동안 두 번째 구매자가 임계 구역에 들어가기를 기다렸지만 그렇게 되지 않았습니다. 카드를 다시 실행하세요.");
    expect(say(new LabWaitTimeoutError("instances-ready", 30_000), "en")).toBe("timed out waiting until instances-ready");
    expect(say(new LabResetError(new StackControlError("fetch failed")), "ja")).toBe("ラボはすべてを元に戻せませんでした（fetch failed）。次のカードの前に、ダッシュボードで「すべてリセット」を押してください。");
    expect(say(new StackControlError("stack control /redis/2/stop: no answer"), "zh-CN")).toContain("npm run demo");
    // An error of no code of ours (a bug, a library's) stays as it was said.
    expect(say(new TypeError("x is not a function"), "ko")).toBe("x is not a function");
  });

  it("say why the stack runner could not help: no answer, what it lacks, or its own refusal", async () => {
    const silent = await answer(new StackControlError("the stack runner's control API does not answer (fetch failed)"), "ko");
    expect(silent.body).toMatchObject({ code: "stack_control_unavailable", runnerCode: "no_answer" });
    expect(silent.body.message).toBe("스택 러너의 제어 API가 응답하지 않습니다. npm run demo로 스택을 시작하세요.");
    const noClock = await answer(new StackControlError("stack control /redis/1/clock: 503 libfaketime is not installed", { runnerCode: "clock_unavailable", runnerStatus: 503 }), "ja");
    expect(noClock.body.message).toBe("ここでは Redis の時計を動かせません。時計を動かすツールがインストールされていません。");
    const other = await answer(new StackControlError("stack control /apps/1/kill: 500 app-1 did not come back", { runnerCode: "restart_failed", runnerStatus: 500 }), "zh-CN");
    expect(other.body.message).toBe("stack runner 没能完成这个操作（响应 500）；原因见 stack runner 的日志。");
    const paused = await answer(new StackControlRefusedError(409, "not_running", "app-1 is paused"), "ko");
    expect(paused).toEqual({ status: 409, body: { code: "not_running", message: "그 서버나 인스턴스는 실행 중이 아닙니다(정지 또는 일시 정지됨). 먼저 시작하거나 재개하세요." } });
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

  it("explain any other field by its zod issue, with the bound it broke", async () => {
    const tooLong = await answer(refused(runCreateSchema, { lockTtlMs: 700_000 }), "ko");
    expect(tooLong.body.fieldErrors).toEqual({ lockTtlMs: ["600000 이하여야 합니다"] });
    const fields = (await answer(refused(runCreateSchema, { lockTtlMs: 0, vus: 2.5, strategy: "nope", scenario: "", extra: 1 }), "ja")).body.fieldErrors!;
    expect(fields).toEqual({
      lockTtlMs: ["1 以上にしてください"],
      vus: ["整数にしてください"],
      strategy: [expect.stringMatching(/^none, .* のどれかにしてください$/)],
      scenario: ["1 文字以上にしてください"],
      extra: ["このリクエストが受け付けない項目です"],
    });
    const others = [
      ["zh-CN", runCreateSchema, { lockTtlMs: 700_000, vus: 0, start: "yes" }],
      ["ko", faultActionSchema, { action: "grudge", cuts: [] }],
      ["ja", faultActionSchema, { action: "nope" }],
    ] as const;
    for (const [locale, schema, body] of others) {
      const { fieldErrors } = (await answer(refused(schema, body), locale)).body;
      for (const message of Object.values(fieldErrors!).flat()) expect(englishWordsIn(message), `${locale}: ${message}`).toEqual([]);
    }
    // English is zod's own.
    expect((await answer(refused(runCreateSchema, { lockTtlMs: 700_000 }), "en")).body.fieldErrors?.lockTtlMs).toEqual(["Too big: expected number to be <=600000"]);
  });

  it("explain a cross-field check by its name, not zod's generic word for it", async () => {
    const open = refused(runCreateSchema, { model: "open" });
    expect((await answer(open, "ko")).body.fieldErrors).toEqual({ rate: ["open 모델에는 도착 속도(구매자/초)가 필요합니다"] });
    expect((await answer(open, "en")).body.fieldErrors).toEqual({ rate: ["the open model needs an arrival rate (buyers per second)"] });
    const both = refused(runCreateSchema, { durationMs: 10_000, totalRequests: 100 });
    expect((await answer(both, "zh-CN")).body.fieldErrors).toEqual({ totalRequests: ["时长和总请求数只能指定其中一个"] });
    const still = refused(faultActionSchema, { action: "clock", node: 3, jumpS: 0 });
    expect((await answer(still, "ja")).body.fieldErrors).toEqual({ jumpS: ["0 秒のジャンプでは時計は動きません"] });
    // Node 1 holds the store's own state: its clock is not the panel's to move, in any language.
    const store = refused(faultActionSchema, { action: "clock", node: 1, jumpS: 15 });
    expect((await answer(store, "en")).body.fieldErrors?.node?.[0]).toMatch(/^node 1 holds the store's own state/);
    expect((await answer(refused(faultActionSchema, { action: "clock-rate", node: 1, rate: 2 }), "ko")).body.fieldErrors?.node?.[0]).toMatch(/^노드 1에는 스토어 자체의 상태/);
    expect(faultActionSchema.safeParse({ action: "clock-reset", node: 1 }).success).toBe(true);
  });

  it("a route answers in the language the request asks for", async () => {
    const route = publicRoute(async () => {
      throw new SoldOutError("goods:001");
    });
    const asked = async (headers: Record<string, string>) => (await (await route(new Request("http://store/api/buy", { headers }), {})).json()) as { code: string; message: string };
    expect(await asked({ "accept-language": "ja,en;q=0.5" })).toEqual({ code: "sold_out", message: "売り切れです。すべて売れました。" });
    expect(await asked({ "accept-language": "en-US" })).toEqual({ code: "sold_out", message: "goods:001 is sold out" });
    expect((await asked({ "accept-language": "en-US", cookie: `${LOCALE_COOKIE}=zh-CN` })).message).toBe("商品已经售完。");
  });
});
