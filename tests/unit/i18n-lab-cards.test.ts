import { describe, expect, it } from "vitest";
import { CARD_TEXTS, localizeScenario } from "@/lib/lab/card-text";
import { SCENARIOS } from "@/lib/lab/scenarios";

const FIELDS = ["title", "tried", "predict"] as const;
const byId = new Map(SCENARIOS.map((scenario) => [String(scenario.id), scenario]));

/**
 * The lab cards' own words in ko, ja and zh-CN (messages/lab/<locale>.json). A language may not
 * have begun yet (its file is `{}`: the cards show in English); once it has, it must be whole —
 * every card, every field, every case — and name only cards and cases that exist.
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

  it("are whole once begun: every card, field and case", () => {
    if (Object.keys(cards).length === 0) return;
    const missing = SCENARIOS.flatMap((scenario) => {
      const card = cards[String(scenario.id)];
      return [
        ...FIELDS.filter((field) => card?.[field] === undefined).map((field) => `${scenario.id}.${field}`),
        ...scenario.cases.filter((labCase) => card?.cases?.[labCase.id] === undefined).map((labCase) => `${scenario.id}.cases.${labCase.id}`),
      ];
    });
    expect(missing).toEqual([]);
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
