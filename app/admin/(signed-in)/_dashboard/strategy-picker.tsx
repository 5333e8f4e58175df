"use client";

import { useTranslations } from "next-intl";
import { useId } from "react";
import type { LockStrategy } from "@/lib/locks/types";
import { FieldErrors } from "./fields";

/** What the admin page tells the picker about each strategy (from listStrategies()). */
export interface StrategyOption {
  name: string;
  safe: boolean;
  lab: boolean;
  localLine?: LockStrategy["localLine"];
}

/** The local line in a few words, and in a sentence for the tooltip (lib/locks/local-line.ts); messages `strategyPicker`. */
const LOCAL_LINE = {
  "hand-off": { label: "handOffLabel", meaning: "handOffMeaning" },
  queue: { label: "queueLabel", meaning: "queueMeaning" },
  none: { label: "noneLabel", meaning: "noneMeaning" },
} as const;

interface Props {
  strategies: readonly StrategyOption[];
  value: string;
  onChange: (name: string) => void;
  errors?: string[];
}

/** The strategy select, and a note on the chosen one: is it safe, and do its buyers line up locally? */
export function StrategyPicker({ strategies, value, onChange, errors }: Props) {
  const t = useTranslations("strategyPicker");
  const chosen = strategies.find((strategy) => strategy.name === value);
  const line = LOCAL_LINE[chosen?.localLine ?? "none"];
  const noteId = useId();
  return (
    <>
      <label>
        {t("label")}
        <select name="strategy" value={value} onChange={(event) => onChange(event.target.value)} aria-describedby={noteId}>
          {strategies.map((strategy) => (
            <option key={strategy.name} value={strategy.name}>
              {strategy.name}{strategy.safe ? "" : t("optionUnsafe")}{strategy.lab ? t("optionLab") : ""}
            </option>
          ))}
        </select>
        <FieldErrors messages={errors} />
      </label>
      {chosen && (
        <p className="strategy-note muted" id={noteId} data-testid="strategy-note">
          <span className="strategy-badge">{chosen.name}</span> {chosen.safe ? t("safe") : t("unsafe")}
          {chosen.lab ? t("labVariant") : ""} ·{" "}
          <span className="hint" title={t(line.meaning)} data-testid="strategy-local-line">{t(line.label)}</span>
        </p>
      )}
    </>
  );
}
