import { TYPE, parse, type MessageFormatElement } from "@formatjs/icu-messageformat-parser";
import { describe, expect, it } from "vitest";
import { LOCALES } from "@/lib/i18n/locales";
import { MESSAGES } from "@/lib/i18n/messages";
import { englishWordsIn } from "../support/untranslated";

/** Every message by its full key (`store.buttonBuyNow`). */
function flatten(tree: object, prefix = ""): Map<string, string> {
  const flat = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    if (typeof value === "string") flat.set(prefix + key, value);
    else for (const [inner, text] of flatten(value as object, `${prefix}${key}.`)) flat.set(inner, text);
  }
  return flat;
}

/** A message's arguments and rich-text tags, and its literal text (what a reader sees of it). */
function anatomy(message: string): { names: Set<string>; text: string } {
  const names = new Set<string>();
  const text: string[] = [];
  const walk = (elements: MessageFormatElement[]) => {
    for (const element of elements) {
      if (element.type === TYPE.literal) text.push(element.value);
      else if (element.type === TYPE.tag) {
        names.add(`<${element.value}>`);
        walk(element.children);
      } else if (element.type !== TYPE.pound) {
        names.add(`{${element.value}}`);
        if (element.type === TYPE.select || element.type === TYPE.plural) for (const option of Object.values(element.options)) walk(option.value);
      }
    }
  };
  walk(parse(message));
  return { names, text: text.join(" ") };
}

const english = flatten(MESSAGES.en);
const others = LOCALES.filter((locale) => locale !== "en");

describe("the messages", () => {
  it.each(others)("%s has exactly English's keys: none missing, none left over", (locale) => {
    const keys = [...flatten(MESSAGES[locale]).keys()];
    expect(keys.filter((key) => !english.has(key))).toEqual([]);
    expect([...english.keys()].filter((key) => !keys.includes(key))).toEqual([]);
  });

  it.each(LOCALES)("every %s message is valid ICU", (locale) => {
    for (const [key, message] of flatten(MESSAGES[locale])) expect(() => parse(message), key).not.toThrow();
  });

  it.each(others)("%s uses the same arguments and tags as English in every message", (locale) => {
    const differ = [...flatten(MESSAGES[locale])].flatMap(([key, message]) => {
      const want = [...anatomy(english.get(key)!).names].sort();
      const got = [...anatomy(message).names].sort();
      return JSON.stringify(want) === JSON.stringify(got) ? [] : [`${key}: ${got.join(" ")} instead of ${want.join(" ")}`];
    });
    expect(differ).toEqual([]);
  });

  // A message may equal English's only when it holds nothing but names, units and codes ("p95 ms").
  it.each(others)("%s leaves no English behind: no English word in any message but names, units and codes", (locale) => {
    const left = [...flatten(MESSAGES[locale])].flatMap(([key, message]) => {
      const words = englishWordsIn(anatomy(message).text);
      return words.length ? [`${key}: ${words.join(", ")}`] : [];
    });
    expect(left).toEqual([]);
  });

  it("the check sees English: a half-translated message fails it", () => {
    expect(englishWordsIn("재고 3개 left in stock")).toEqual(["left", "in", "stock"]);
    expect(englishWordsIn("token-lua · PASS · goods:001 · 20 ms · app-1 · http://10.0.0.5:3000")).toEqual([]);
    expect(englishWordsIn("민준 and Ana", ["민준", "Ana"])).toEqual(["and"]);
  });
});
