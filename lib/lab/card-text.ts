import type { Locale } from "../i18n/locales";
import ja from "../../messages/lab/ja.json";
import ko from "../../messages/lab/ko.json";
import zhCN from "../../messages/lab/zh-CN.json";
import type { LabScenario } from "./scenario-types";

/**
 * A lab card's own words in one language: its title, what is tried (the story), what the class
 * should predict, and each case's label by case id. English is the card itself (./scenarios*.ts,
 * the source every translation follows); the other languages live in messages/lab/<locale>.json,
 * keyed by scenario id (`"1"`, `"reentrancy"`…), one object per card. Plain text, not ICU: these
 * are shown as written (braces and apostrophes need no escaping). A card or a field a language
 * does not have yet is shown in English (tests/unit/i18n-lab-cards.test.ts keeps the files
 * whole once a language has begun).
 */
export interface CardText {
  readonly title?: string;
  readonly tried?: string;
  readonly predict?: string;
  /** Case id → label. */
  readonly cases?: Readonly<Record<string, string>>;
}

export type CardTexts = Readonly<Record<string, CardText>>;

export const CARD_TEXTS: Readonly<Record<Exclude<Locale, "en">, CardTexts>> = Object.freeze({ ko, ja, "zh-CN": zhCN });

/** The card as `locale` reads it: every text that language has, English where it has none yet. */
export function localizeScenario(scenario: LabScenario, locale: Locale): LabScenario {
  if (locale === "en") return scenario;
  const text = CARD_TEXTS[locale][String(scenario.id)];
  if (!text) return scenario;
  return {
    ...scenario,
    title: text.title ?? scenario.title,
    tried: text.tried ?? scenario.tried,
    predict: text.predict ?? scenario.predict,
    cases: scenario.cases.map((labCase) => ({ ...labCase, label: text.cases?.[labCase.id] ?? labCase.label })),
  };
}
