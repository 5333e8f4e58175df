"use client";

import { useTranslations } from "next-intl";
import { useId, useState, type ReactNode } from "react";
import type { LockConfig } from "@/lib/validations/config";

/** The API's 400 answer, per field: { lockTtlMs: ["must be at least 1"] }. */
export type FieldErrorMap = Record<string, string[]>;

export function FieldErrors({ messages }: { messages?: string[] }) {
  return messages?.map((text) => <span key={text} className="field-error">{text}</span>);
}

/** A labelled control with its errors under it: the <label> wraps the control, so it names it. */
function Field({ label, errors, wide, children }: { label: string; errors?: string[]; /** Two columns of the grid: a menu and a number side by side. */ wide?: boolean; children: ReactNode }) {
  return (
    <label className={wide ? "wide" : undefined}>
      {label}
      {children}
      <FieldErrors messages={errors} />
    </label>
  );
}

/**
 * The lock's knobs. Uncontrolled; keyed by the applied value, so they show what the server
 * accepted after Apply or Start run.
 */
export function KnobFields({ config, errors }: { config: LockConfig; errors: FieldErrorMap }) {
  const t = useTranslations("fields");
  return (
    <>
      <Field label={t("lockTtl")} errors={errors.lockTtlMs}>
        <input name="lockTtlMs" type="number" min={1} key={`ttl-${config.lockTtlMs}`} defaultValue={config.lockTtlMs} />
      </Field>
      <Field label={t("waitTimeout")} errors={errors.waitTimeoutMs}>
        <input name="waitTimeoutMs" type="number" min={0} key={`wait-${config.waitTimeoutMs}`} defaultValue={config.waitTimeoutMs} />
      </Field>
      <Field label={t("work")} errors={errors.workMs}>
        <input name="workMs" type="number" min={0} key={`work-${config.workMs}`} defaultValue={config.workMs} />
      </Field>
      <Field label={t("lockDelay")} errors={errors.lockDelayMs}>
        <input name="lockDelayMs" type="number" min={0} key={`delay-${config.lockDelayMs}`} defaultValue={config.lockDelayMs} />
      </Field>
    </>
  );
}

/** The sale and the load of a run: the stock to sell, how many buyers, and for how long. */
export function RunFields({ initialStock, errors }: { initialStock: number; errors: FieldErrorMap }) {
  const t = useTranslations("fields");
  const [bound, setBound] = useState<"requests" | "duration">("requests");
  const [model, setModel] = useState<"closed" | "open">("closed");
  const modelHintId = useId();
  return (
    <>
      <Field label={t("initialStock")} errors={errors.initialStock}>
        <input name="initialStock" type="number" min={0} defaultValue={initialStock} />
      </Field>
      <Field label={t("loadModel")} errors={errors.model}>
        {/* Short options, so the menu is never cut off in its column; the chosen model is said in full under it. */}
        <select name="model" value={model} onChange={(e) => setModel(e.target.value as typeof model)} aria-describedby={modelHintId}>
          <option value="closed">{t("modelClosedShort")}</option>
          <option value="open">{t("modelOpenShort")}</option>
        </select>
        <span className="hint-line" id={modelHintId}>{model === "open" ? t("modelOpen") : t("modelClosed")}</span>
      </Field>
      {model === "open" && (
        <Field label={t("rate")} errors={errors.rate}>
          <input name="rate" type="number" min={1} defaultValue={200} />
        </Field>
      )}
      <Field label={model === "open" ? t("mostInFlight") : t("vus")} errors={errors.vus}>
        <input name="vus" type="number" min={1} defaultValue={50} />
      </Field>
      <Field label={t("loadBound")} errors={[...(errors.totalRequests ?? []), ...(errors.durationMs ?? [])]} wide>
        <span className="inline">
          <select name="bound" value={bound} onChange={(e) => setBound(e.target.value as typeof bound)} aria-label={t("loadBound")}>
            <option value="requests">{t("totalRequests")}</option>
            <option value="duration">{t("duration")}</option>
          </select>
          <input name="amount" type="number" min={1} defaultValue={bound === "requests" ? 400 : 10} key={bound} aria-label={t("amount")} />
        </span>
      </Field>
    </>
  );
}
