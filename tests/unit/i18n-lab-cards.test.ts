import { describe, expect, it } from "vitest";
import { CARD_TEXTS, localizeScenario } from "@/lib/lab/card-text";
import { SCENARIOS } from "@/lib/lab/scenarios";
import { CARD_TERMS, englishWordsIn } from "../support/untranslated";

const FIELDS = ["title", "tried", "predict"] as const;
const byId = new Map(SCENARIOS.map((scenario) => [String(scenario.id), scenario]));

/**
 * The lab cards' own words in ko, ja and zh-CN (messages/lab/<locale>.json): whole — every card,
 * every field, every case —, naming only cards and cases that exist, and with no English left but
 * names, commands and the papers' terms (CARD_TERMS). A language added later may start from `{}`
 * (its cards show in English) only by changing this test.
 */
describe.each(Object.entries(CARD_TEXTS))("the lab cards in %s", (locale, cards) => {
  it("name only cards and cases that exist, with text in every field given", () => {
    for (const [id, card] of Object.entries(cards)) {
      const scenario = byId.get(id);
      expect(scenario, `card ${id}`).toBeDefined();
      for (const field of FIELDS) if (card[field] !== undefined) expect(card[field]!.trim(), `${id}.${field}`).not.toBe("");
      for (const [caseId, label] of Object.entries(card.cases ?? {})) {
        expect(scenario!.cases.some((labCase) => labCase.id === caseId), `${id}.cases.${caseId}`).toBe(true);
        expect(label.trim()).not.toBe("");
      }
    }
  });

  it("are whole: every card, field and case", () => {
    const missing = SCENARIOS.flatMap((scenario) => {
      const card = cards[String(scenario.id)];
      return [
        ...FIELDS.filter((field) => card?.[field] === undefined).map((field) => `${scenario.id}.${field}`),
        ...scenario.cases.filter((labCase) => card?.cases?.[labCase.id] === undefined).map((labCase) => `${scenario.id}.cases.${labCase.id}`),
      ];
    });
    expect(missing).toEqual([]);
  });

  it("leave no English behind but names, commands and the papers' terms", () => {
    const left = Object.entries(cards).flatMap(([id, card]) =>
      [card.title, card.tried, card.predict, ...Object.values(card.cases ?? {})].flatMap((text) => {
        const words = englishWordsIn(text ?? "", CARD_TERMS);
        return words.length ? [`${id}: ${words.join(", ")}`] : [];
      }),
    );
    expect(left).toEqual([]);
  });
});

describe("a card in a language", () => {
  it("shows that language's words where it has them, English elsewhere", () => {
    const scenario = SCENARIOS[0]!;
    expect(localizeScenario(scenario, "en")).toBe(scenario);
    const partial = { ...CARD_TEXTS.ko };
    const shown = localizeScenario(scenario, "ko");
    expect(shown.title).toBe(partial[String(scenario.id)]?.title ?? scenario.title);
    expect(shown.cases.map((labCase) => labCase.id)).toEqual(scenario.cases.map((labCase) => labCase.id));
    expect(shown.cases.map((labCase) => labCase.steps)).toEqual(scenario.cases.map((labCase) => labCase.steps));
  });
});
