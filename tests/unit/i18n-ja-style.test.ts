import { readFileSync } from "node:fs";
import path from "node:path";
import { TYPE, parse, type MessageFormatElement } from "@formatjs/icu-messageformat-parser";
import { describe, expect, it } from "vitest";
import { CARD_TEXTS } from "@/lib/lab/card-text";
import { MESSAGES } from "@/lib/i18n/messages";

/**
 * The Japanese house style (messages/glossary.ja.md, 「書き方」): what a native reader flagged once
 * and must not come back. Checked on what a reader sees: ICU arguments become "0", each option of a
 * select or plural is a line of its own, and `code` in backticks is left out.
 */

/** Every message by its full key (`store.buttonBuyNow`). */
function flatten(tree: object, prefix = ""): Map<string, string> {
  const flat = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    if (typeof value === "string") flat.set(prefix + key, value);
    else for (const [inner, text] of flatten(value as object, `${prefix}${key}.`)) flat.set(inner, text);
  }
  return flat;
}

/** What a reader sees of an ICU message: arguments as "0" (a number, so "{seconds} s" shows as "0 s"), every option of a choice on a line of its own. */
function seen(message: string): string {
  const render = (elements: MessageFormatElement[]): string => elements.map((element) => {
    if (element.type === TYPE.literal) return element.value;
    if (element.type === TYPE.tag) return render(element.children);
    if (element.type === TYPE.pound) return "1";
    if (element.type === TYPE.select || element.type === TYPE.plural) return `\n${Object.values(element.options).map((option) => render(option.value)).join("\n")}\n`;
    return "0";
  }).join("");
  return render(parse(message)).replace(/`[^`]*`/g, "`code`");
}

const ui = flatten(MESSAGES.ja);
const cards = flatten(CARD_TEXTS.ja as object);
/** Every Japanese string, as a reader sees it (the lab cards are plain text, not ICU). */
const all: [string, string][] = [
  ...[...ui].map(([key, message]): [string, string] => [key, seen(message)]),
  ...[...cards].map(([key, text]): [string, string] => [`lab/${key}`, text.replace(/`[^`]*`/g, "`code`")]),
];

// --- the rules, each a function of one string, so a test can show it catches a bad one ---------------

/** (1) A sentence is ended with 。, never continued with a colon: 「…ました: …」, 「…ください: …」. */
function sentenceColon(text: string): boolean {
  return /(?:ました|ません|でした|です|ます|ください|ない|[たるん])\s*[:：]\s*\S/.test(text);
}

const JAPANESE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー、。「」『』（）：！？・…〜]/u;

/** (2) A half-width : ! ( ) whose nearest non-space neighbour is Japanese: prose, so full-width. */
function halfWidthInProse(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/[:!()]/g)) {
    const before = text.slice(0, match.index).trimEnd().slice(-1);
    const after = text.slice(match.index + 1).trimStart().slice(0, 1);
    if (JAPANESE.test(before) || JAPANESE.test(after)) found.push(text.slice(Math.max(0, match.index - 6), match.index + 7));
  }
  return found;
}

/** (3) The phone asks one way: 「もう一度お試しください」, never these. */
const REJECTED_POLITENESS = /(?<!お)試してください|試して下さい|再試行してください/;
const PHONE = /^(store|common|join|errors|apiErrors)\./;

/** (5) Seconds are 秒: no "1 s". */
function secondsInLatin(text: string): boolean {
  return /\d\s*s\b/.test(text);
}

/** (6) The glossary's words, and the ones they replaced. */
const TERMS = { ドロップ: "セール", 幽霊在庫: "架空在庫" } as const;

// --- (4) the phone's notices: 「エラー：{message}」 and 「混雑：{message}」 --------------------------------

/** A container's label: what it says before the message it wraps (「エラー」). */
function labelOf(key: string): string {
  const text = ui.get(key)!;
  return text.slice(0, text.indexOf("{")).replace(/[:：\s]+$/, "");
}
/** The messages the buy panel and the lab board wrap: a buy's answers, nginx's, the API's own. */
const WRAPPED = [...ui.keys()].filter((key) =>
  key === "store.busy" || key === "store.joinFirst" || key.startsWith("common.gateway.")
  || key === "common.storeAnswered" || key === "common.storeUnreachable" || /^apiErrors\.[^.]+$/.test(key));
const CONTAINERS = ["store.busyNotice", "store.errorNotice", "lab.caseError"];

/** Does `message` (as seen) begin with `label`, or hold a colon that would chain after the container's? */
function doubledLabel(message: string, label: string): boolean {
  return message.split("\n").some((line) => line.trimStart().startsWith(label));
}
function holdsColon(message: string): boolean {
  return /：/.test(message) || halfWidthInProse(message).some((around) => around.includes(":"));
}

describe("Japanese house style (messages/ja.json, messages/lab/ja.json)", () => {
  it("(1) ends a sentence with 。, never with a colon that runs on", () => {
    expect(all.filter(([, text]) => sentenceColon(text)).map(([key]) => key)).toEqual([]);
  });

  it("(2) writes （）：！ in Japanese prose; half-width only in code, numbers and between ASCII", () => {
    expect(all.flatMap(([key, text]) => halfWidthInProse(text).map((around) => `${key}: ${around}`))).toEqual([]);
  });

  it("(3) asks the phone one way: もう一度お試しください", () => {
    expect(all.filter(([key, text]) => PHONE.test(key) && REJECTED_POLITENESS.test(text)).map(([key]) => key)).toEqual([]);
  });

  it("(4) no wrapped message begins with its container's label, nor chains a colon after it", () => {
    const labels = CONTAINERS.map(labelOf);
    expect(labels).toEqual(["混雑", "エラー", "エラー"]);
    expect(WRAPPED.length).toBeGreaterThan(20);
    const doubled = WRAPPED.flatMap((key) => {
      const text = seen(ui.get(key)!);
      return [...labels.filter((label) => doubledLabel(text, label)).map((label) => `${key} begins with ${label}`),
        ...(holdsColon(text) ? [`${key} holds a colon`] : [])];
    });
    expect(doubled).toEqual([]);
  });

  it("(5) writes seconds as 秒, never \"1 s\"", () => {
    expect(all.filter(([, text]) => secondsInLatin(text)).map(([key]) => key)).toEqual([]);
  });

  it("(6) uses the glossary's words: セール for a drop, 架空在庫 for a phantom unit", () => {
    const glossary = readFileSync(path.join(__dirname, "../../messages/glossary.ja.md"), "utf8");
    expect(glossary).toMatch(/^\| drop \(a timed sale\) \| セール \|/m);
    expect(glossary).toMatch(/^\| phantom \(unit\) \| 架空在庫 \|/m);
    for (const [rejected] of Object.entries(TERMS)) expect(all.filter(([, text]) => text.includes(rejected)).map(([key]) => key), rejected).toEqual([]);
    for (const key of ["figures.phantom", "runsTable.phantom", "lab.phantom"]) expect(ui.get(key)).toBe("架空在庫");
    for (const key of ["store.buttonDropClosed", "dropForm.start", "projector.joinTitle"]) expect(ui.get(key)).toContain("セール");
  });

  it("each rule sees what it is for: a planted bad string fails it, its fix passes", () => {
    expect(sentenceColon("まず名前を入力して参加してください: ここでの購入はすべて人が行います。")).toBe(true);
    expect(sentenceColon("まず名前を入力して参加してください。ここでの購入はすべて人が行います。")).toBe(false);
    expect(halfWidthInProse("拒否されました (409)。")).not.toEqual([]);
    expect(halfWidthInProse("購入しました! 注文")).not.toEqual([]);
    expect(halfWidthInProse("STUCK: 在庫が残っている")).not.toEqual([]);
    expect(halfWidthInProse("goods:001 の読み書き · token-lua (SET NX PX) · npm run db:seed · `SET key: v`")).toEqual([]);
    expect(REJECTED_POLITENESS.test("もう一度試してください。")).toBe(true);
    expect(REJECTED_POLITENESS.test("しばらくしてから再試行してください。")).toBe(true);
    expect(REJECTED_POLITENESS.test("もう一度お試しください。")).toBe(false);
    expect(doubledLabel(seen("{reason, select, a {エラー：まず名前を} other {ok}}"), "エラー")).toBe(true);
    expect(holdsColon("ストアの応答：502。")).toBe(true);
    expect(holdsColon("ストアが 502 を返しました。")).toBe(false);
    expect(secondsInLatin("有効期限 (1 s) つき")).toBe(true);
    expect(secondsInLatin("TTL 40 ms、有効期限（1 秒）")).toBe(false);
  });
});
