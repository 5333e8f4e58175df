import { TYPE, parse, type MessageFormatElement } from "@formatjs/icu-messageformat-parser";
import { describe, expect, it } from "vitest";
import { MESSAGES } from "@/lib/i18n/messages";
import { CARD_TEXTS } from "@/lib/lab/card-text";

// Korean style rules that a native-speaker review asked for, and the terms messages/glossary.ko.md decided.
// They read the string values of messages/ko.json and messages/lab/ko.json.

/** Every message by its full key (`store.buttonBuyNow`). */
function flatten(tree: object, prefix = ""): Map<string, string> {
  const flat = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    if (typeof value === "string") flat.set(prefix + key, value);
    else for (const [inner, text] of flatten(value as object, `${prefix}${key}.`)) flat.set(inner, text);
  }
  return flat;
}

const ui = flatten(MESSAGES.ko);
// The lab cards under their own prefix: `cards.10.predict` (the UI catalog has a `lab` namespace of its own).
const cards = flatten(CARD_TEXTS.ko, "cards.");
const everything = new Map([...ui, ...cards]);

/** Rich-text tags are invisible to the reader: 「<countdown>끝났습니다</countdown>: …」 reads 「끝났습니다: …」. */
const withoutTags = (message: string) => message.replace(/<\/?[a-zA-Z][\w-]*>/g, "");

/** Rule 1: a polite sentence ending (…다, …요) followed by a colon is an English habit; Korean ends the sentence. */
export function colonAfterSentence(message: string): boolean {
  return /[다요]\s*[:：]/.test(withoutTags(message));
}

/** Where a reader's eye starts: the message's start and the start of each select/plural branch. */
function openings(message: string): string[] {
  const starts: string[] = [];
  const firstText = (elements: MessageFormatElement[]): string => {
    const first = elements[0];
    if (!first) return "";
    if (first.type === TYPE.literal) return first.value;
    if (first.type === TYPE.tag) return firstText(first.children);
    return "";
  };
  const walk = (elements: MessageFormatElement[]) => {
    starts.push(firstText(elements));
    for (const element of elements) {
      if (element.type === TYPE.select || element.type === TYPE.plural) for (const option of Object.values(element.options)) walk(option.value);
      else if (element.type === TYPE.tag) walk(element.children);
    }
  };
  walk(parse(message));
  return starts.map((start) => start.trimStart());
}

/** Rule 2: a message the page wraps in 「label: {message}」 must not begin with that label, nor chain a colon of its own. */
export function doublesLabel(label: string, message: string): string | null {
  if (openings(message).some((start) => start.startsWith(label))) return `begins with ${label}`;
  if (/[:：]/.test(withoutTags(message))) return "has a colon of its own after the label's";
  return null;
}

/** Rule 4: seconds are 초, written against the number (1초, 1.5초): never 「1 s」, 「1 초」, 「sec」. */
export function secondsMixed(message: string): boolean {
  return /(?:\d|\})\s*s\b/.test(message) || /(?:\d|\})\s+초/.test(message) || /\bsecs?\b/.test(message);
}

/** The containers that add a label to another message (app/(store)/buy-panel.tsx, the lab board), and what they wrap. */
const CONTAINERS: { container: string; argument: string; wraps: (key: string) => boolean }[] = [
  { container: "store.busyNotice", argument: "{message}", wraps: (key) => key === "store.busy" || key === "apiErrors.busy" },
  {
    container: "store.errorNotice",
    argument: "{message}",
    wraps: (key) =>
      key === "store.joinFirst" || key === "common.storeAnswered" || key === "common.storeUnreachable" || key.startsWith("common.gateway.") || key.startsWith("apiErrors."),
  },
  { container: "lab.caseError", argument: "{error}", wraps: (key) => key.startsWith("apiErrors.") },
];

function labelOf(container: string, argument: string): string {
  const text = ui.get(container)!;
  expect(text, container).toContain(argument);
  return text.slice(0, text.indexOf(argument)).replace(/[\s:：]+$/, "");
}

/** Terms the glossary decided: the word chosen, and the words it replaced (never to come back). */
const REJECTED: { word: string; why: string }[] = [
  { word: "잠금", why: "the lock is 락 (분산 락, 락 획득), as Korean developers say it" },
  { word: "정산", why: "accounting is 집계 and the reconciler 보정 작업; 정산 reads as payment settlement" },
  { word: "드롭", why: "the sale event is 한정 판매" },
  { word: "유효성 검사", why: "Redlock's validity check is 유효 시간 확인" },
  { word: "벽시계", why: "the wall clock is the 시스템 시계" },
  { word: "구매하지 않았습니다", why: "a refusal says 구매가 처리되지 않았습니다 (not a choice)" },
  { word: "판매하지 않았습니다", why: "a refusal says 판매가 이루어지지 않았습니다 (not a choice)" },
];

function rejectedIn(messages: Map<string, string>): string[] {
  return [...messages].flatMap(([key, message]) => REJECTED.filter(({ word }) => message.includes(word)).map(({ word, why }) => `${key}: ${word} (${why})`));
}

describe("Korean style", () => {
  it("no sentence ends in a colon: 「…습니다: …」 is two sentences in Korean", () => {
    const found = [...everything].filter(([, message]) => colonAfterSentence(message)).map(([key, message]) => `${key}: ${message}`);
    expect(found).toEqual([]);
  });

  it.each(CONTAINERS)("what $container wraps neither repeats its label nor chains a colon", ({ container, argument, wraps }) => {
    const label = labelOf(container, argument);
    expect(label.length).toBeGreaterThan(0);
    const found = [...ui].flatMap(([key, message]) => {
      if (!wraps(key)) return [];
      const problem = doublesLabel(label, message);
      return problem ? [`${key} ${problem}: ${message}`] : [];
    });
    expect(found).toEqual([]);
  });

  it("uses the glossary's terms: the rejected ones appear nowhere", () => {
    expect(rejectedIn(everything)).toEqual([]);
  });

  it("uses the glossary's terms where they are decided", () => {
    // The lock is 락, on the phone and on the cards.
    expect(ui.get("store.strategyInUse")).toContain("락 전략");
    expect(cards.get("cards.1.title")).toBe("락 없음");
    // Accounting is 집계; the reconciler is 보정 작업 and its work 보정.
    expect(ui.get("projector.accounting")).toBe("집계");
    expect(ui.get("sale.reconciler")).toMatch(/^보정 작업:/);
    expect(ui.get("meaning.pendingUnits")).toContain("보정 작업");
    // A unit of stock is 재고 단위; 상품 is left for the product (its SKU) alone.
    expect(ui.get("meaning.doubleSold")).toContain("서로 다른 재고 단위 수");
    expect([...everything].filter(([, message]) => message.includes("상품")).map(([key]) => key)).toEqual(["store.noProduct"]);
    // The wait timeout has one name: the field's.
    expect(ui.get("fields.waitTimeout")).toMatch(/^대기 제한 시간/);
    expect(ui.get("meaning.verdict")).toContain("대기 제한 시간");
    // Redlock's check is on the same 유효 시간 the timeline and the votes show.
    expect(cards.get("cards.10.predict")).toContain("유효 시간 확인");
    expect(ui.get("votes.validityLeft")).toContain("유효 시간");
  });

  it("writes seconds one way: 1초, 1.5초", () => {
    const found = [...everything].filter(([, message]) => secondsMixed(message)).map(([key, message]) => `${key}: ${message}`);
    expect(found).toEqual([]);
  });

  it("the checks see what they look for: a planted bad string fails each one", () => {
    expect(colonAfterSentence("먼저 이름을 입력해 참여하세요: 여기서는 모든 구매를 사람이 합니다.")).toBe(true);
    expect(colonAfterSentence("한정 판매가 <countdown>끝났습니다</countdown>: 모두 팔렸습니다.")).toBe(true);
    expect(colonAfterSentence("{a, select, x {다릅니다： 표본입니다} other {}}")).toBe(true);
    expect(colonAfterSentence("이유: {reason}.")).toBe(false);
    expect(doublesLabel("혼잡", "혼잡: 구매자가 너무 많습니다.")).not.toBeNull();
    expect(doublesLabel("오류", "{reason, select, a {오류가 났습니다.} other {괜찮습니다.}}")).not.toBeNull();
    expect(doublesLabel("오류", "먼저 이름을 입력해 참여하세요: 여기서는 모든 구매를 사람이 합니다.")).not.toBeNull();
    expect(doublesLabel("오류", "참여한 사람만 구매할 수 있습니다. 먼저 이름을 입력하세요.")).toBeNull();
    expect(rejectedIn(new Map([["x", "분산 잠금을 획득했습니다."], ["y", "정산기가 처리합니다."]]))).toHaveLength(2);
    expect(secondsMixed("TTL 1 s")).toBe(true);
    expect(secondsMixed("{seconds} 초 후 오픈")).toBe(true);
    expect(secondsMixed("1.5초, 5 ms, {seconds}초")).toBe(false);
  });
});
